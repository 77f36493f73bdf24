import { fromPromise, type AnyActorRef } from 'xstate';
import type { Bus } from '../../bus/index.js';
import {
  cronJobId,
  cronJobMachine,
  cronJobs,
  cronMachine,
  type CronEntry,
  type CronRunOutput,
} from '../../machines/cron.js';
import type { Config } from '../../store/config/index.js';
import { pollMultiplier } from '../../store/config/poll-multiplier.js';
import type { CronJob, CronRunAfter } from '../../store/cron-db.js';
import type { Logger } from '../../store/logs/logger.js';
import type { Scheduler } from '../scheduler.js';
import { runCronJob, type CronEffects } from './run-job.js';
import { InFlight } from '../in-flight.js';

declare module '../../machines/cron.js' {
  interface CronRegister {
    job: CronJob;
  }
}

export interface CronActorDeps extends CronEffects {
  workspace: string;
  bus: Bus;
  scheduler: Scheduler;
  config: () => Config;
  logger: Logger;
}

/**
 * The store is re-read this often (stretched by `power.poll_interval_multiplier`): `tern cron add` is another process.
 */
export const CRON_POLL_MS = 5000;
// Far-off runs (a yearly job) are reached in steps: timers cannot wait longer than about 24 days.
const LONGEST_WAIT_MS = 3_600_000;

/**
 * The store and croner, loaded by the first read: the gateway starts cron after its channels have reported, so a
 * start without jobs compiles neither before `/ready`.
 */
const cronStore = () =>
  Promise.all([import('../../store/cron-db.js'), import('../../store/cron/schedule.js')]).then(([db, schedule]) => ({
    ...db,
    ...schedule,
  }));
type NextRunAfter = Awaited<ReturnType<typeof cronStore>>['nextRunAfter'];

/** What a finished run leaves: one-shots go (kept disabled after a failure, so the failure stays visible). */
function afterRun(job: CronJob, failed: boolean, now: Date, nextRunAfter: NextRunAfter): CronRunAfter {
  if (job.schedule.kind === 'at') return failed ? { then: 'disable' } : { then: 'remove' };
  const next = nextRunAfter(job.schedule, now);
  return next ? { then: 'reschedule', next_run_at: next.toISOString() } : { then: 'disable' };
}

function dueOf(job: CronJob, now: number, nextRunAfter: NextRunAfter): number | undefined {
  if (!job.enabled) return undefined;
  if (job.next_run_at) return Date.parse(job.next_run_at);
  if (job.schedule.kind === 'at') return Date.parse(job.schedule.at);
  return nextRunAfter(job.schedule, new Date(now))?.getTime();
}

const entryOf = (job: CronJob, now: number, nextRunAfter: NextRunAfter): CronEntry => ({
  job: job.id,
  record: job,
  enabled: job.enabled,
  due: dueOf(job, now, nextRunAfter),
});

/** A job's state for the dashboard and tests. */
export interface CronJobView {
  job: string;
  state: string;
  due?: string;
}

/**
 * The effects of the cron machine (`machines/cron.ts`) for the jobs of `<workspace>/cron/`: the store read, each
 * job's run (`cron.fired`, the job, its record), and the clock its guards and delays follow. The machine holds the
 * jobs, their states and due times; whoever runs `logic` (the gateway, as its `cron` child) starts and stops it, with
 * the system's clock set to the scheduler's. A run missed while the process was down happens once at start.
 */
export class CronActor {
  /** Store reads and runs, so a stop can wait for a run to be recorded. */
  private readonly inFlight = new InFlight();
  /** The cron machine with these effects. */
  readonly logic: typeof cronMachine;

  constructor(private readonly deps: CronActorDeps) {
    this.logic = this.provided();
  }

  private provided(): typeof cronMachine {
    const { scheduler } = this.deps;
    const job = cronJobMachine.provide({
      actors: {
        run: fromPromise<CronRunOutput, CronEntry>(({ input, signal }) => this.track(this.run(input, signal))),
      },
      guards: { isDue: ({ context }) => context.due !== undefined && context.due <= scheduler.now() },
      delays: {
        due: ({ context }) => Math.min(Math.max(0, (context.due ?? Infinity) - scheduler.now()), LONGEST_WAIT_MS),
      },
    });
    return cronMachine.provide({
      actors: { job, read: fromPromise(() => this.track(this.read())) },
      delays: { poll: () => CRON_POLL_MS * pollMultiplier(this.deps.config().power) },
    });
  }

  /** Resolves when no run or store read is in flight (tests wait on it after moving their clock). */
  settled(): Promise<void> {
    return this.inFlight.settled();
  }

  /** Each job's id, current state and due time, from the cron actor's children. */
  static states(cron: AnyActorRef | undefined): CronJobView[] {
    const children = (cron?.getSnapshot().children ?? {}) as Record<string, AnyActorRef | undefined>;
    return [...cronJobs(children).values()].map(({ value, context }) => ({
      job: context.job,
      state: String(value),
      ...(context.due !== undefined ? { due: new Date(context.due).toISOString() } : {}),
    }));
  }

  /** The ids of the job actors of a cron actor, for saying why they leave the board before it stops. */
  static jobActors(cron: AnyActorRef | undefined): string[] {
    return CronActor.states(cron).map((view) => cronJobId(view.job));
  }

  private track<T>(work: Promise<T>): Promise<T> {
    return this.inFlight.track(work);
  }

  private async read(): Promise<CronEntry[] | undefined> {
    const { logger, scheduler } = this.deps;
    try {
      const { listCronJobs, nextRunAfter } = await cronStore();
      const stored = await listCronJobs(this.deps.workspace, {
        onSkipped: ({ key, reason }) => logger.warn('cron record skipped', { key, reason }),
      });
      const now = scheduler.now();
      return stored.map((job) => entryOf(job, now, nextRunAfter));
    } catch (error) {
      logger.warn('cron jobs not read', { reason: (error as Error).message });
      return undefined;
    }
  }

  /** A stop aborts `signal`: a command in flight ends, the run is still recorded, nothing more is published. */
  private async run(entry: CronEntry, signal: AbortSignal): Promise<CronRunOutput> {
    const { scheduler, bus, logger, workspace } = this.deps;
    const job = entry.record;
    const started = scheduler.now();
    bus.publish({ type: 'cron.fired', data: { job: job.id, kind: job.job.kind } });
    const result = await runCronJob(job, `cron_${job.id}_${started}`, this.deps.config(), this.deps, signal);
    const { recordCronRun, nextRunAfter } = await cronStore();
    const finished = new Date(scheduler.now());
    logger.info('cron job ran', { job: job.id, kind: job.job.kind, outcome: result.outcome, detail: result.detail });
    const after = afterRun(job, result.outcome === 'failed', finished, nextRunAfter);
    const updated = await recordCronRun(workspace, job.id, { at: finished.toISOString(), ...result }, after).catch(
      (error: unknown) => {
        logger.warn('cron run not recorded', { job: job.id, reason: (error as Error).message });
        return undefined;
      },
    );
    if (updated === undefined) return { after: 'remove' };
    return { after: after.then, entry: entryOf(updated, finished.getTime(), nextRunAfter) };
  }
}
