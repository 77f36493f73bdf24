import type { InspectionEvent, SnapshotFrom } from 'xstate';
import { causeOf } from '../../machines/board.js';
import type { McpServerState, mcpServerMachine } from '../../machines/mcp-server.js';

/** The machine name the dashboard lists MCP servers under; its chart is `machines/mcp-server.ts`. */
export const MCP_SERVER_MACHINE = 'mcp_server';

/** One move of a server's machine: a change of state, or a new tool list while connected. */
export interface ServerMove {
  from: McpServerState;
  to: McpServerState;
  /** What caused it: the machine's event (`CONNECTED`), a delay (`after.retry`), an invoked actor's end. */
  event: string;
}

type ServerSnapshot = SnapshotFrom<typeof mcpServerMachine>;

/**
 * Reads a server actor's moves from xstate's inspection (`createActor(machine, { inspect })`): each change of the
 * machine's state, and each new tool list, with the snapshot it led to. The first state (`idle`) is no move.
 */
export function serverMoves(onMove: (move: ServerMove, snapshot: ServerSnapshot) => void) {
  let shown: McpServerState | undefined;
  return (inspection: InspectionEvent): void => {
    if (inspection.type !== '@xstate.snapshot' || inspection.actorRef.sessionId !== inspection.rootId) return;
    const snapshot = inspection.snapshot as ServerSnapshot;
    const to = snapshot.value;
    const event = causeOf(inspection.event.type);
    const from = shown;
    shown = to;
    if (from === undefined || (from === to && event !== 'TOOLS_CHANGED')) return;
    onMove({ from, to, event }, snapshot);
  };
}
