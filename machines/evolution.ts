import { assign, fromPromise, setup } from 'xstate';

/**
 * What moves evolution's cold path (grouping learning records, drafting skills, applying accepted ones):
 * - `RUN`: a trigger fired (`after_turn`, a `scheduled` time, or a decision to apply). A `RUN` while a run is on
 *   is remembered and makes one more run afterwards, so nothing recorded meanwhile waits for the next trigger.
 * - `STOP`: the process stops; a run in progress is left to finish, nothing starts after it.
 */
export type EvolutionEvent = { type: 'RUN'; trigger: EvolutionTrigger } | { type: 'STOP' };
export type EvolutionTrigger = 'after_turn' | 'scheduled' | 'decision';

export const EVOLUTION_STATES = ['idle', 'running', 'stopped'] as const;

/** `idle` ⇄ `running` (the provided `coldPath` actor), `stopped` at the end. */
export const evolutionMachine = setup({
  types: { context: {} as { again: boolean }, events: {} as EvolutionEvent },
  actors: {
    // The host provides the real run; replaying a log never runs one.
    coldPath: fromPromise<void>(async () => undefined),
  },
  actions: {
    remember: assign({ again: true }),
    forget: assign({ again: false }),
  },
  guards: {
    again: ({ context }) => context.again,
  },
}).createMachine({
  id: 'evolution',
  initial: 'idle',
  context: { again: false },
  states: {
    idle: { on: { RUN: 'running', STOP: 'stopped' } },
    running: {
      entry: 'forget',
      invoke: {
        src: 'coldPath',
        onDone: [{ guard: 'again', target: 'running', reenter: true }, { target: 'idle' }],
        onError: [{ guard: 'again', target: 'running', reenter: true }, { target: 'idle' }],
      },
      on: { RUN: { actions: 'remember' }, STOP: 'stopped' },
    },
    stopped: { type: 'final' },
  },
});
