import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import * as z from 'zod';
import { writeFileAtomic } from './config/files.js';

/** What one MCP server's login left behind: the registered client, the tokens, and when they were saved. */
export const mcpAuthRecordSchema = z.object({
  client: z.record(z.string(), z.unknown()).optional(),
  tokens: z.record(z.string(), z.unknown()).optional(),
  /** Milliseconds since the epoch at which `tokens` were saved, to tell when `expires_in` runs out. */
  saved_at: z.number().optional(),
});
export type McpAuthRecord = z.infer<typeof mcpAuthRecordSchema>;

/** Thrown when a stored login file is not what we wrote; the fix is to log in again. */
export class McpAuthFileError extends Error {
  readonly code = 'mcp_auth_unreadable';
  constructor(
    readonly file: string,
    why: string,
  ) {
    super(`${file}: ${why}; run \`tern mcp login\` again`);
    this.name = 'McpAuthFileError';
  }
}

/** `$AGENT_HOME/auth/mcp/`, a protected path: file tools can neither read nor list it. */
export function mcpAuthDir(home: string): string {
  return join(home, 'auth', 'mcp');
}

/** Server names come from config keys; encoding keeps any of them inside the directory. */
export function mcpAuthPath(home: string, server: string): string {
  return join(mcpAuthDir(home), `${encodeURIComponent(server)}.json`);
}

export function readMcpAuth(home: string, server: string): McpAuthRecord {
  const file = mcpAuthPath(home, server);
  if (!existsSync(file)) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    throw new McpAuthFileError(file, 'not valid JSON');
  }
  const record = mcpAuthRecordSchema.safeParse(parsed);
  if (!record.success) throw new McpAuthFileError(file, 'not a login record');
  return record.data;
}

/** Owner-only file in an owner-only directory, written atomically. */
export function writeMcpAuth(home: string, server: string, record: McpAuthRecord): void {
  const dir = mcpAuthDir(home);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  writeFileAtomic(mcpAuthPath(home, server), `${JSON.stringify(record, null, 2)}\n`);
}

export function removeMcpAuth(home: string, server: string): void {
  rmSync(mcpAuthPath(home, server), { force: true });
}
