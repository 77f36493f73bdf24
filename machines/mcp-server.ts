import { setup } from 'xstate';

export type McpServerEvent =
  | { type: 'CONNECT' }
  | { type: 'CONNECTED' }
  | { type: 'TOOLS_CHANGED' }
  | { type: 'FAILED' }
  | { type: 'STOP' };

/**
 * One MCP server connection, as `adapters/mcp/connection.ts` moves it: a failure retries with backoff,
 * a dropped connection fails, a new tool list keeps it connected. The connection keeps its own state;
 * this definition draws its chart.
 */
export const mcpServerMachine = setup({
  types: { events: {} as McpServerEvent },
}).createMachine({
  id: 'mcp_server',
  initial: 'idle',
  states: {
    idle: { on: { CONNECT: 'connecting', STOP: 'disabled' } },
    connecting: { on: { CONNECTED: 'connected', FAILED: 'failed', STOP: 'disabled' } },
    connected: { on: { TOOLS_CHANGED: 'connected', FAILED: 'failed', STOP: 'disabled' } },
    failed: { on: { CONNECT: 'connecting', STOP: 'disabled' } },
    disabled: { type: 'final' },
  },
});
