import { assign, fromPromise, raise, setup, type StateValue } from 'xstate';
import type { Board } from './board.js';

/**
 * What moves evolution's cold path (grouping learning records, drafting skills, applying accepted ones):
 * - `RUN`: a trigger fired (`after_turn`, a `scheduled` time, or a decision to apply). A `RUN` while a run is on
 *   is remembered and makes one more run afterwards, so nothing recorded meanwhile waits for the next trigger.
 * - `STOP`: the process stops; a run in progress is left to finish, nothing starts after it.
 */
export type EvolutionEvent = { type: 'RUN'; trigger: EvolutionTrigger } | { type: 'STOP' };
export type EvolutionTrigger = 'after_turn' | 'scheduled' | 'decision';

export const EVOLUTION_STATES = ['idle', 'running', 'stopped'] as const;

export interface EvolutionContext {
  again: boolean;
  /** The last `scheduled` minute that ran (its date and time): a minute runs once however the clock moves. */
  lastScheduled?: string;
}

/** The cold path's state as the board shows it: `idle`, `running` or `stopped`. */
export function evolutionState(value: StateValue): string {
  if (typeof value === 'string') return value;
  const on = value.on;
  return typeof on === 'object' && typeof on.cold === 'string' ? on.cold : 'idle';
}

export const evolutionBoard: Board<EvolutionContext> = {
  id: () => 'evolution',
  state: evolutionState,
};

/**
 * `on` has three regions: `cold` (`idle` ⇄ `running`, the provided `coldPath` actor), `clock` (on each minute, a
 * `RUN` when it is a scheduled one) and `inbox` (decisions queued by the CLI are taken every `inbox` delay); `STOP`
 * ends in `stopped`. The host provides the clock's guard and the delays: the machine has no clock of its own.
 */
export const evolutionMachine = setup({
  types: { context: {} as EvolutionContext, events: {} as EvolutionEvent },
  actors: {
    // The host provides the real run; replaying a log never runs one.
    coldPath: fromPromise<void>(async () => undefined),
  },
  actions: {
    remember: assign({ again: true }),
    forget: assign({ again: false }),
    /** Provided by the host: records this minute as run (`lastScheduled`). */
    markScheduled: () => {},
    /** Provided by the host: takes the decisions queued by `tern skills accept/reject`. */
    takeInbox: () => {},
  },
  guards: {
    again: ({ context }) => context.again,
    /** Provided by the host: the mode drafts at all (`draft`, `apply`). */
    drafts: () => true,
    /** Provided by the host: this minute is one of `cold_path_times`, not run yet. */
    scheduledMinute: () => false,
  },
  delays: {
    /** Provided by the host: until the next minute begins. */
    minute: 60_000,
    inbox: 2000,
  },
}).createMachine({
  id: 'evolution',
  initial: 'on',
  context: { again: false },
  states: {
    on: {
      type: 'parallel',
      on: { STOP: 'stopped' },
      states: {
        cold: {
          initial: 'idle',
          states: {
            idle: { on: { RUN: { guard: 'drafts', target: 'running' } } },
            running: {
              entry: 'forget',
              invoke: {
                id: 'coldPath',
                src: 'coldPath',
                onDone: [{ guard: 'again', target: 'running', reenter: true }, { target: 'idle' }],
                onError: [{ guard: 'again', target: 'running', reenter: true }, { target: 'idle' }],
              },
              on: { RUN: { guard: 'drafts', actions: 'remember' } },
            },
          },
        },
        clock: {
          initial: 'ticking',
          states: {
            ticking: {
              after: {
                minute: [
                  {
                    guard: 'scheduledMinute',
                    target: 'ticking',
                    reenter: true,
                    actions: ['markScheduled', raise({ type: 'RUN', trigger: 'scheduled' })],
                  },
                  { target: 'ticking', reenter: true },
                ],
              },
            },
          },
        },
        inbox: {
          initial: 'waiting',
          states: {
            waiting: { after: { inbox: { target: 'waiting', reenter: true, actions: 'takeInbox' } } },
          },
        },
      },
    },
    stopped: { type: 'final' },
  },
});
