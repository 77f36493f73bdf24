import type { McpManager } from '../mcp/index.js';

/** What waiting for the MCP servers says: the wait itself (shown while it lasts), and each server left out. */
export interface McpReadyReport {
  waiting(line: string): void;
  missing(line: string): void;
}

/**
 * Waits until every enabled MCP server has connected or failed, at most `timeoutSeconds`: the servers connect in the
 * background, and a turn that starts before they have is offered none of their tools. Each server that failed or is
 * still connecting afterwards is named, so no tool goes missing unsaid.
 */
export async function mcpReady(
  manager: McpManager | undefined,
  timeoutSeconds: number,
  report: McpReadyReport,
): Promise<void> {
  if (!manager) return;
  const enabled = manager.statuses().filter((s) => s.enabled);
  const pending = enabled.filter((s) => s.connection.state === 'connecting').map((s) => s.name);
  if (pending.length > 0 && timeoutSeconds > 0) {
    const servers = `MCP server${pending.length === 1 ? '' : 's'} ${pending.join(', ')}`;
    report.waiting(`waiting for ${servers} to connect (up to ${timeoutSeconds} s)`);
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutSeconds * 1000)));
    await Promise.race([Promise.all(pending.map((name) => manager.settled(name))), deadline]);
    clearTimeout(timer);
  }
  for (const server of manager.statuses().filter((s) => s.enabled)) {
    const { connection } = server;
    if (connection.state === 'failed') {
      report.missing(`MCP server "${server.name}" failed to connect (${connection.reason}); its tools are not offered`);
    } else if (connection.state === 'connecting') {
      const within = `within ${timeoutSeconds} s (tools.mcp.connect_timeout_seconds)`;
      report.missing(`MCP server "${server.name}" did not connect ${within}; its tools are not offered`);
    }
  }
}
