import type { ConnectionState } from './connection-state.js';
import type { McpManager, McpServerStatus } from './manager.js';

const yesNo = (value: boolean) => (value ? 'yes' : 'no');

function connected(state: ConnectionState): string {
  switch (state.state) {
    case 'connected':
      return `yes (${state.tools} tools)`;
    case 'connecting':
      return 'connecting';
    case 'failed':
      return `no: ${state.reason}`;
    case 'disabled':
      return 'no';
  }
}

/** `/list mcp`: each configured server with enabled, deferred and connected. */
export function listMcpText(statuses: readonly McpServerStatus[]): string {
  if (statuses.length === 0) return 'No MCP servers are configured (tools.mcp.servers).';
  return statuses
    .map(
      (s) =>
        `${s.name}: enabled ${yesNo(s.enabled)}, deferred ${yesNo(s.deferred)}, connected ${connected(s.connection)}`,
    )
    .join('\n');
}

/** `/show mcp <server>`: the tools a connected server offers now, by their model-facing names. */
export function showMcpText(manager: McpManager, server: string): string {
  const status = manager.statuses().find((s) => s.name === server);
  if (!status) {
    const known = manager.statuses().map((s) => s.name);
    return `No MCP server named "${server}" (configured: ${known.join(', ') || 'none'}).`;
  }
  if (status.connection.state !== 'connected')
    return `MCP server ${server} is not connected (${connected(status.connection)}).`;
  const tools = manager.catalogue().filter((tool) => tool.server === server);
  const lines = tools.map((tool) => `- ${tool.name}: ${tool.summary || '(no description)'}`);
  const deferred = status.deferred ? ' (deferred: found by search)' : '';
  return `MCP server ${server}: ${tools.length} tool${tools.length === 1 ? '' : 's'}${deferred}\n${lines.join('\n')}`;
}
