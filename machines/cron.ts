import { setup } from 'xstate';
import type { Board } from './board.js';

/** What a finished run leaves: another run, a kept but disabled one-shot, or nothing. */
export type CronAfterRun = 'reschedule' | 'disable' | 'remove';

/**
 * One machine per scheduled job, fed by the cron actor:
 * - `FIRE`: its time came. - `FINISHED`: the run ended; `after` says what follows.
 * - `DISABLE` / `ENABLE`: the job was switched off or on in the store. - `REMOVE`: it left the store.
 */
export type CronEvent =
  | { type: 'FIRE' }
  | { type: 'FINISHED'; after: CronAfterRun }
  | { type: 'DISABLE' }
  | { type: 'ENABLE' }
  | { type: 'REMOVE' };

export interface CronInput {
  job: string;
  enabled: boolean;
}

export const cronBoard: Board<CronInput> = {
  id: (context) => `cron:${context.job}`,
  stopReason: (_, cause) => (cause === 'REMOVE' ? 'removed' : 'finished'),
};

/** `scheduled` → `running` → `scheduled` | `disabled` | `done`; a removed job is `done` from anywhere. */
export const cronMachine = setup({
  types: {
    events: {} as CronEvent,
    input: {} as CronInput,
    context: {} as CronInput,
  },
  guards: {
    startsEnabled: ({ context }) => context.enabled,
    runsAgain: ({ event }) => event.type === 'FINISHED' && event.after === 'reschedule',
    keptDisabled: ({ event }) => event.type === 'FINISHED' && event.after === 'disable',
  },
}).createMachine({
  id: 'cron',
  context: ({ input }) => input,
  initial: 'loaded',
  states: {
    loaded: {
      always: [{ guard: 'startsEnabled', target: 'scheduled' }, { target: 'disabled' }],
    },
    scheduled: {
      on: { FIRE: 'running', DISABLE: 'disabled', REMOVE: 'done' },
    },
    running: {
      on: {
        FINISHED: [
          { guard: 'runsAgain', target: 'scheduled' },
          { guard: 'keptDisabled', target: 'disabled' },
          { target: 'done' },
        ],
      },
    },
    disabled: {
      on: { ENABLE: 'scheduled', REMOVE: 'done' },
    },
    done: { type: 'final' },
  },
});
