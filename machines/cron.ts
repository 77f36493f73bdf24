import { assign, enqueueActions, fromPromise, setup, type AnyActorRef } from 'xstate';
import type { Board } from './board.js';

/**
 * What a job's record is: `machines/` imports no store types, so the host registers it by augmenting this interface
 * (`declare module`) with `job`.
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled in by the host's declaration merging
export interface CronRegister {}
type Job = CronRegister extends { job: infer T } ? T : unknown;

/** A job as the store holds it, and when it runs next (ms since the epoch; none while disabled or never again). */
export interface CronEntry {
  job: string;
  record: Job;
  enabled: boolean;
  due: number | undefined;
}

/** What a finished run leaves: another run, a kept but disabled one-shot, or nothing. */
export type CronAfterRun = 'reschedule' | 'disable' | 'remove';

/** A run's end: what follows, and the job as the store holds it after the run (none once it left the store). */
export interface CronRunOutput {
  after: CronAfterRun;
  entry?: CronEntry;
}

/** The store changed: the job was switched on (or edited while on), switched off, or left it. */
export type CronEvent =
  | { type: 'ENABLE'; entry: CronEntry }
  | { type: 'DISABLE'; entry: CronEntry }
  | { type: 'REMOVE' };

export const cronBoard: Board<CronEntry> = {
  id: (context) => `cron:${context.job}`,
  stopReason: (_, cause) => (cause === 'REMOVE' ? 'removed' : 'finished'),
};

/** The id of a job's actor. */
export const cronJobId = (job: string): string => `cron:${job}`;

/**
 * One job: `scheduled` → `running` → `scheduled` | `disabled` | `done`; a removed job is `done` from anywhere but
 * `running`. Its due time is its context: `scheduled` runs it once the host's clock says it is due (`isDue`), and
 * waits for that with the `due` delay (at most the host's longest wait, then it looks again). The run is the host's
 * `run` actor, which records it and says what follows.
 */
export const cronJobMachine = setup({
  types: {
    events: {} as CronEvent,
    input: {} as CronEntry,
    context: {} as CronEntry,
  },
  actors: {
    run: fromPromise<CronRunOutput, CronEntry>(async () => ({ after: 'remove' })),
  },
  actions: {
    /** The store's record of the job replaces the last. */
    take: assign(({ event }) => ('entry' in event ? event.entry : {})),
  },
  guards: {
    startsEnabled: ({ context }) => context.enabled,
    /** Provided by the host: the machine has no clock of its own. */
    isDue: () => false,
  },
  delays: {
    /** Provided by the host: how long until `context.due`, by its clock. */
    due: 3_600_000,
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
      always: { guard: 'isDue', target: 'running' },
      after: { due: { target: 'scheduled', reenter: true } },
      on: {
        ENABLE: { target: 'scheduled', reenter: true, actions: 'take' },
        DISABLE: { target: 'disabled', actions: 'take' },
        REMOVE: 'done',
      },
    },
    running: {
      invoke: {
        id: 'run',
        src: 'run',
        input: ({ context }) => context,
        onDone: [
          {
            guard: ({ event }) => event.output.after === 'reschedule' && event.output.entry !== undefined,
            target: 'scheduled',
            actions: assign(({ event }) => event.output.entry ?? {}),
          },
          {
            guard: ({ event }) => event.output.after === 'disable' && event.output.entry !== undefined,
            target: 'disabled',
            actions: assign(({ event }) => event.output.entry ?? {}),
          },
          { target: 'done' },
        ],
        onError: 'done',
      },
    },
    disabled: {
      on: {
        ENABLE: { target: 'scheduled', actions: 'take' },
        DISABLE: { actions: 'take' },
        REMOVE: 'done',
      },
    },
    done: { type: 'final' },
  },
});

/** A job actor's state, as `cronJobMachine` names it. */
export type CronJobState = 'loaded' | 'scheduled' | 'running' | 'disabled' | 'done';

interface JobSnapshot {
  value: unknown;
  status: string;
  context: CronEntry;
}

/** The job actors among a supervisor's children that have not ended, by job id. */
export function cronJobs(children: Record<string, AnyActorRef | undefined>): Map<string, JobSnapshot> {
  const jobs = new Map<string, JobSnapshot>();
  for (const [id, child] of Object.entries(children)) {
    const snapshot = child?.getSnapshot() as JobSnapshot | undefined;
    if (id.startsWith('cron:') && snapshot?.status === 'active') jobs.set(snapshot.context.job, snapshot);
  }
  return jobs;
}

/** An edit in the store (a due time read again is not one: a job due "from now" would never come). */
const sameRecord = (a: CronEntry, b: CronEntry): boolean => JSON.stringify(a.record) === JSON.stringify(b.record);

/**
 * The jobs of the store as a supervisor: `reading` reads them (the host's `read`, none when the store could not be
 * read), then each stored job has a child actor (`cron:<id>`) told what changed, one no longer stored is removed,
 * and `waiting` reads again after the `poll` delay. A running job is left be: its run records what follows.
 */
export const cronMachine = setup({
  actors: {
    read: fromPromise<CronEntry[] | undefined>(async () => []),
    job: cronJobMachine,
  },
  actions: {
    adopt: enqueueActions(({ enqueue, event, self }) => {
      const stored = 'output' in event ? (event.output as CronEntry[] | undefined) : undefined;
      if (!stored) return;
      const known = cronJobs(self.getSnapshot().children as Record<string, AnyActorRef | undefined>);
      const ids = new Set(stored.map((entry) => entry.job));
      for (const [job, snapshot] of known) {
        if (!ids.has(job) && snapshot.value !== 'running') enqueue.sendTo(cronJobId(job), { type: 'REMOVE' });
      }
      for (const entry of stored) {
        const id = cronJobId(entry.job);
        const snapshot = known.get(entry.job);
        if (!snapshot) enqueue.spawnChild('job', { id, input: entry });
        else if (snapshot.value !== 'running' && !sameRecord(snapshot.context, entry))
          enqueue.sendTo(id, { type: entry.enabled ? 'ENABLE' : 'DISABLE', entry });
      }
    }),
  },
  delays: {
    /** Provided by the host: the store is another process's too (`tern cron add`). */
    poll: 5000,
  },
}).createMachine({
  id: 'cron_schedule',
  initial: 'reading',
  states: {
    reading: {
      invoke: { id: 'read', src: 'read', onDone: { target: 'waiting', actions: 'adopt' }, onError: 'waiting' },
    },
    waiting: { after: { poll: 'reading' } },
  },
});
