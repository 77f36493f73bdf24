import { fromTransition } from 'xstate';
import type { McpTool } from '../../adapters/mcp/mcp-tool.js';
import type { McpOptions } from '../../adapters/mcp/options.js';
import type { McpConnection } from './connection.js';

/**
 * What the MCP manager holds, never changed in place: the `tools.mcp` block it runs, a connection per running server,
 * and the tools by the names the model sees once worked out (absent after any change, until asked for again).
 */
export interface McpManagerState {
  readonly options: McpOptions;
  readonly connections: ReadonlyMap<string, McpConnection>;
  readonly named?: ReadonlyMap<string, McpTool>;
}

export type McpManagerEvent =
  /** A reloaded block: the `stale` servers' connections are gone (they are being stopped). */
  | { type: 'reconfigured'; options: McpOptions; stale: readonly string[] }
  | { type: 'started'; name: string; connection: McpConnection }
  /** A server moved (connected, failed, a new tool list): the tools are worked out again when next asked for. */
  | { type: 'changed' }
  | { type: 'named'; tools: ReadonlyMap<string, McpTool> }
  | { type: 'stopped' };

export function nextManagerState(state: McpManagerState, event: McpManagerEvent): McpManagerState {
  switch (event.type) {
    case 'reconfigured': {
      const connections = new Map(state.connections);
      for (const name of event.stale) connections.delete(name);
      return { options: event.options, connections };
    }
    case 'started':
      return { options: state.options, connections: new Map([...state.connections, [event.name, event.connection]]) };
    case 'changed':
      return { options: state.options, connections: state.connections };
    case 'named':
      return { ...state, named: event.tools };
    case 'stopped':
      return { options: state.options, connections: new Map() };
  }
}

/** The manager's state as an actor's: the reducer holds it, the manager sends it what happened. */
export const mcpManagerLogic = fromTransition(nextManagerState, ({ input }: { input: McpOptions }) => ({
  options: input,
  connections: new Map<string, McpConnection>(),
}));
