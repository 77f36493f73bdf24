import type { ConnectionState, McpManager } from '../mcp/index.js';

/** What waiting for the MCP servers says: the wait itself (shown while it lasts), and each server left out. */
export interface McpReadyReport {
  waiting(line: string): void;
  missing(line: string): void;
}

/**
 * Waits until every enabled MCP server has connected or failed, at most `timeoutSeconds`: the servers connect in the
 * background, and a turn that starts before they have is offered none of their tools. Each server that failed or is
 * still connecting afterwards is named, so no tool goes missing unsaid. A server is judged by the state it settled
 * in, not the one it is in when the wait ends: a failed server retries after its backoff, and while a slower server
 * was awaited it may be connecting again, which would read as "did not connect in time".
 */
export async function mcpReady(
  manager: Pick<McpManager, 'statuses' | 'settled'> | undefined,
  timeoutSeconds: number,
  report: McpReadyReport,
): Promise<void> {
  if (!manager) return;
  const enabled = manager.statuses().filter((s) => s.enabled);
  const outcomes = new Map<string, ConnectionState>(enabled.map((s) => [s.name, s.connection]));
  const pending = enabled.filter((s) => s.connection.state === 'connecting').map((s) => s.name);
  if (pending.length > 0 && timeoutSeconds > 0) {
    const servers = `MCP server${pending.length === 1 ? '' : 's'} ${pending.join(', ')}`;
    report.waiting(`waiting for ${servers} to connect (up to ${timeoutSeconds} s)`);
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutSeconds * 1000)));
    const settling = pending.map(async (name) => void outcomes.set(name, await manager.settled(name)));
    await Promise.race([Promise.all(settling), deadline]);
    clearTimeout(timer);
  }
  for (const [name, connection] of outcomes) {
    if (connection.state === 'failed') {
      report.missing(`MCP server "${name}" failed to connect (${connection.reason}); its tools are not offered`);
    } else if (connection.state === 'connecting') {
      const within = `within ${timeoutSeconds} s (tools.mcp.connect_timeout_seconds)`;
      report.missing(`MCP server "${name}" did not connect ${within}; its tools are not offered`);
    }
  }
}
