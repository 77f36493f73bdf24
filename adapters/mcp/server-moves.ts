import type { EventDraft } from '../../bus/events/index.js';
import type { ConnectionState } from './connection-state.js';

/** The machine name the dashboard lists MCP servers under; its chart is `machines/mcp-server.ts`. */
export const MCP_SERVER_MACHINE = 'mcp_server';

/** A server's state before its first connection attempt. */
export const MCP_SERVER_IDLE = 'idle';

export type ServerStateName = ConnectionState['state'] | typeof MCP_SERVER_IDLE;

const EVENT_INTO: Record<ConnectionState['state'], string> = {
  connecting: 'CONNECT',
  connected: 'CONNECTED',
  failed: 'FAILED',
  disabled: 'STOP',
};

/** One move of a server connection as the `actor.transitioned` event the machines page folds. */
export function serverMoved(
  server: string,
  from: ServerStateName,
  to: ConnectionState,
): EventDraft<'actor.transitioned'> {
  const event = from === 'connected' && to.state === 'connected' ? 'TOOLS_CHANGED' : EVENT_INTO[to.state];
  return {
    type: 'actor.transitioned',
    data: { actor: `mcp:${server}`, machine: MCP_SERVER_MACHINE, from, to: to.state, event },
  };
}
