import { existsSync, readFileSync } from 'node:fs';
import { writeFileAtomic } from './config/files.js';
import { ConfigError } from './config/errors.js';
import { validateConfig } from './config/load.js';
import { isRecord, objectAt, type RawObject } from './config/raw.js';

/** A change to `tools.mcp.servers` in the config file, as `tern mcp add|remove` makes it. */
export type McpServerEdit = { kind: 'set'; name: string; server: RawObject } | { kind: 'remove'; name: string };

export class McpServerEditError extends Error {
  constructor(
    readonly code: 'mcp_server_unknown',
    readonly server: string,
    readonly known: string[],
  ) {
    super(`no MCP server named "${server}" (configured: ${known.join(', ') || 'none'})`);
    this.name = 'McpServerEditError';
  }
}

function readRaw(path: string): RawObject {
  if (!existsSync(path)) return { version: 2 };
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new ConfigError('config_unreadable', path, [`(file): not valid JSON (${(error as Error).message})`]);
  }
  if (!isRecord(parsed)) throw new ConfigError('config_invalid', path, ['(config): is not an object (allowed: a JSON object of blocks)']);
  return parsed;
}

/**
 * Applies one edit to the config file, leaving every other key as written. The edited file must
 * still validate; otherwise nothing is written and `ConfigError` lists the problems.
 */
export function editMcpServers(path: string, edit: McpServerEdit): void {
  const raw = readRaw(path);
  const servers = objectAt(raw, ['tools', 'mcp', 'servers']);
  if (edit.kind === 'remove') {
    if (!Object.hasOwn(servers, edit.name)) {
      throw new McpServerEditError('mcp_server_unknown', edit.name, Object.keys(servers));
    }
    delete servers[edit.name];
  } else {
    servers[edit.name] = edit.server;
  }
  const validation = validateConfig(raw);
  if (!validation.ok) throw new ConfigError('config_invalid', path, validation.problems);
  writeFileAtomic(path, `${JSON.stringify(raw, null, 2)}\n`);
}
