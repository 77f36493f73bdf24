import { assign, setup } from 'xstate';

/**
 * What moves a session: `RECEIVED` when a message joins its queue (a turn or a chat command), `FINISHED`
 * when the one in progress ends. `/stop` is not an event here: it skips the queue and reaches the turn directly.
 */
export type SessionEvent = { type: 'RECEIVED' } | { type: 'FINISHED' };

export interface SessionContext {
  /** Messages waiting behind the one in progress. */
  queued: number;
}

/** `idle` → `running` → `idle`; while `running`, further messages wait in order and are counted. */
export const sessionMachine = setup({
  types: {
    context: {} as SessionContext,
    events: {} as SessionEvent,
  },
  actions: {
    queueOne: assign({ queued: ({ context }) => context.queued + 1 }),
    startNext: assign({ queued: ({ context }) => context.queued - 1 }),
  },
  guards: {
    hasQueued: ({ context }) => context.queued > 0,
  },
}).createMachine({
  id: 'session',
  context: { queued: 0 },
  initial: 'idle',
  states: {
    idle: {
      on: { RECEIVED: { target: 'running' } },
    },
    running: {
      on: {
        RECEIVED: { actions: 'queueOne' },
        FINISHED: [{ guard: 'hasQueued', actions: 'startNext' }, { target: 'idle' }],
      },
    },
  },
});
