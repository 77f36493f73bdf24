import { assign, setup } from 'xstate';

/** `SESSION_OPENED`: a session key was seen for the first time. `STOP`: shutdown began. `STOPPED`: every session ended. */
export type AgentEvent = { type: 'SESSION_OPENED' } | { type: 'STOP' } | { type: 'STOPPED' };

export interface AgentContext {
  /** Sessions this agent has opened since it started. */
  sessions: number;
}

/** `serving` (opening sessions as messages arrive) → `stopping` (running turns are ended) → `stopped`. */
export const agentMachine = setup({
  types: {
    context: {} as AgentContext,
    events: {} as AgentEvent,
  },
  actions: {
    countSession: assign({ sessions: ({ context }) => context.sessions + 1 }),
  },
}).createMachine({
  id: 'agent',
  context: { sessions: 0 },
  initial: 'serving',
  states: {
    serving: {
      on: {
        SESSION_OPENED: { actions: 'countSession' },
        STOP: { target: 'stopping' },
      },
    },
    stopping: {
      on: { STOPPED: { target: 'stopped' } },
    },
    stopped: { type: 'final' },
  },
});
