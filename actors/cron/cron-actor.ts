import { createActor, type Actor, type InspectionEvent } from 'xstate';
import type { Bus } from '../../bus/index.js';
import { cronMachine, type CronEvent } from '../../machines/cron.js';
import type { Config } from '../../store/config/index.js';
import { pollMultiplier } from '../../store/config/poll-multiplier.js';
import { listCronJobs, recordCronRun, type CronJob, type CronRunAfter } from '../../store/cron-db.js';
import { nextRunAfter } from '../../store/cron/schedule.js';
import type { Logger } from '../../store/logs/logger.js';
import type { Scheduler } from '../scheduler.js';
import { runCronJob, type CronEffects } from './run-job.js';
import { InFlight } from '../in-flight.js';

export interface CronActorDeps extends CronEffects {
  workspace: string;
  bus: Bus;
  scheduler: Scheduler;
  config: () => Config;
  logger: Logger;
  /** Inspects each job's actor for the machines page (`actors/board.ts`). */
  inspect?: (event: InspectionEvent) => void;
  /** Says why a job's actor left the board before the cron actor stops it. */
  retired?: (actor: string, reason: string) => void;
}

/** The store is re-read this often (stretched by `power.poll_interval_multiplier`): `tern cron add` is another process. */
export const CRON_POLL_MS = 5000;
// Far-off runs (a yearly job) are reached in steps: timers cannot wait longer than about 24 days.
const LONGEST_WAIT_MS = 3_600_000;

interface Entry {
  job: CronJob;
  /** The job's machine: its state is the job's. */
  actor: Actor<typeof cronMachine>;
  /** When it runs next (ms); undefined while disabled or when it never will again. */
  due: number | undefined;
}

/** What a finished run leaves: one-shots go (kept disabled after a failure, so the failure stays visible). */
function afterRun(job: CronJob, failed: boolean, now: Date): CronRunAfter {
  if (job.schedule.kind === 'at') return failed ? { then: 'disable' } : { then: 'remove' };
  const next = nextRunAfter(job.schedule, now);
  return next ? { then: 'reschedule', next_run_at: next.toISOString() } : { then: 'disable' };
}

const stateOf = (entry: Entry): string => String(entry.actor.getSnapshot().value);

/**
 * Runs the jobs of `<workspace>/cron/`: one timer for the earliest due job, an actor per job running the cron
 * machine (`scheduled` → `running` → `scheduled` | `disabled` | `done`), whose moves the machines page sees, and
 * `cron.fired` for each run. A run missed while the process was down happens once at start.
 */
export class CronActor {
  private readonly entries = new Map<string, Entry>();
  private readonly inFlight = new InFlight();
  private timer: { cancel(): void } | undefined;
  private poll: { cancel(): void } | undefined;
  private stopped = true;
  /** Aborted by `stop()`: a command in flight is ended, so waiting for `settled()` after a stop is short. */
  private halt = new AbortController();

  constructor(private readonly deps: CronActorDeps) {}

  async start(): Promise<void> {
    this.stopped = false;
    if (this.halt.signal.aborted) this.halt = new AbortController();
    await this.inFlight.track(this.sync());
    this.wake();
    this.schedulePoll();
  }

  /**
   * Stops the timers and ends a command in flight (each job's actor leaves the board saying `reason`). A run in flight
   * finishes and is recorded, but publishes nothing more; `settled()` resolves once it is. `start()` runs it again.
   */
  stop(reason = 'the gateway is stopping'): void {
    for (const id of this.entries.keys()) this.ended(id, reason);
    this.stopped = true;
    this.timer?.cancel();
    this.poll?.cancel();
    this.halt.abort();
  }

  /** Resolves when no run or store read is in flight (tests wait on it after moving their clock). */
  settled(): Promise<void> {
    return this.inFlight.settled();
  }

  /** Each job's id and current state, for the dashboard and tests. */
  states(): Array<{ job: string; state: string; due?: string }> {
    return [...this.entries.values()].map((e) => ({
      job: e.job.id,
      state: stateOf(e),
      ...(e.due !== undefined ? { due: new Date(e.due).toISOString() } : {}),
    }));
  }

  private schedulePoll(): void {
    const interval = CRON_POLL_MS * pollMultiplier(this.deps.config().power);
    this.poll = this.deps.scheduler.after(interval, () => {
      void this.inFlight.track(this.sync()).then(() => {
        if (this.stopped) return;
        this.wake();
        this.schedulePoll();
      });
    });
  }

  private async sync(): Promise<void> {
    let stored: CronJob[];
    try {
      stored = await listCronJobs(this.deps.workspace, {
        onSkipped: ({ key, reason }) => this.deps.logger.warn('cron record skipped', { key, reason }),
      });
    } catch (error) {
      this.deps.logger.warn('cron jobs not read', { reason: (error as Error).message });
      return;
    }
    // Store operations take turns, so a job running now is skipped below and never read stale.
    if (this.stopped) return;
    const byId = new Map(stored.map((job) => [job.id, job]));
    for (const [id, entry] of this.entries) {
      if (byId.has(id) || stateOf(entry) === 'running') continue;
      this.send(entry, { type: 'REMOVE' });
      this.entries.delete(id);
    }
    for (const job of stored) this.adopt(job);
  }

  private adopt(job: CronJob): void {
    const now = this.deps.scheduler.now();
    const known = this.entries.get(job.id);
    if (!known) {
      const actor = createActor(cronMachine, {
        id: `cron:${job.id}`,
        input: { job: job.id, enabled: job.enabled },
        ...(this.deps.inspect ? { inspect: this.deps.inspect } : {}),
      });
      actor.subscribe({ error: () => undefined });
      this.entries.set(job.id, { job, actor, due: this.dueOf(job, now) });
      actor.start();
      return;
    }
    if (stateOf(known) === 'running' || JSON.stringify(known.job) === JSON.stringify(job)) return;
    known.job = job;
    known.due = this.dueOf(job, now);
    this.send(known, job.enabled ? { type: 'ENABLE' } : { type: 'DISABLE' });
  }

  private dueOf(job: CronJob, now: number): number | undefined {
    if (!job.enabled) return undefined;
    if (job.next_run_at) return Date.parse(job.next_run_at);
    if (job.schedule.kind === 'at') return Date.parse(job.schedule.at);
    return nextRunAfter(job.schedule, new Date(now))?.getTime();
  }

  /** A move of the job's machine; from the stop on, nothing moves (nothing more is published). */
  private send(entry: Entry, event: CronEvent): void {
    if (!this.stopped) entry.actor.send(event);
  }

  /** The job leaves the board as the cron actor stops. */
  private ended(id: string, reason: string): void {
    const entry = this.entries.get(id);
    this.entries.delete(id);
    if (!entry) return;
    this.deps.retired?.(`cron:${id}`, reason);
    entry.actor.stop();
  }

  /** Fires every job whose time has come, then waits for the next one. */
  private wake(): void {
    if (this.stopped) return;
    const now = this.deps.scheduler.now();
    for (const entry of this.entries.values()) {
      if (stateOf(entry) === 'scheduled' && entry.due !== undefined && entry.due <= now)
        void this.inFlight.track(this.fire(entry));
    }
    this.arm();
  }

  private arm(): void {
    this.timer?.cancel();
    const dues = [...this.entries.values()]
      .filter((e) => stateOf(e) === 'scheduled' && e.due !== undefined)
      .map((e) => e.due!);
    if (this.stopped || dues.length === 0) return;
    const wait = Math.min(Math.max(0, Math.min(...dues) - this.deps.scheduler.now()), LONGEST_WAIT_MS);
    this.timer = this.deps.scheduler.after(wait, () => this.wake());
  }

  private async fire(entry: Entry): Promise<void> {
    const { job } = entry;
    const started = this.deps.scheduler.now();
    this.send(entry, { type: 'FIRE' });
    if (!this.stopped) this.deps.bus.publish({ type: 'cron.fired', data: { job: job.id, kind: job.job.kind } });
    const result = await runCronJob(job, `cron_${job.id}_${started}`, this.deps.config(), this.deps, this.halt.signal);
    const finished = new Date(this.deps.scheduler.now());
    this.deps.logger.info('cron job ran', {
      job: job.id,
      kind: job.job.kind,
      outcome: result.outcome,
      detail: result.detail,
    });
    const after = afterRun(job, result.outcome === 'failed', finished);
    const updated = await recordCronRun(
      this.deps.workspace,
      job.id,
      { at: finished.toISOString(), ...result },
      after,
    ).catch((error: unknown) => {
      this.deps.logger.warn('cron run not recorded', { job: job.id, reason: (error as Error).message });
      return undefined;
    });
    const kept = updated === undefined ? 'remove' : after.then;
    this.send(entry, { type: 'FINISHED', after: kept });
    if (kept === 'remove' || updated === undefined) this.entries.delete(job.id);
    else Object.assign(entry, { job: updated, due: this.dueOf(updated, finished.getTime()) });
    this.arm();
  }
}
