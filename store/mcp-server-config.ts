import { readRawConfig, writeRawConfig } from './config/raw-file.js';
import { objectAt, type RawObject } from './config/raw.js';

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

/**
 * Applies one edit to the config file, leaving every other key as written. The edited file must
 * still validate; otherwise nothing is written and `ConfigError` lists the problems.
 */
export function editMcpServers(path: string, edit: McpServerEdit): void {
  const raw = readRawConfig(path);
  const servers = objectAt(raw, ['tools', 'mcp', 'servers']);
  if (edit.kind === 'remove') {
    if (!Object.hasOwn(servers, edit.name)) {
      throw new McpServerEditError('mcp_server_unknown', edit.name, Object.keys(servers));
    }
    delete servers[edit.name];
  } else {
    servers[edit.name] = edit.server;
  }
  writeRawConfig(path, raw);
}
