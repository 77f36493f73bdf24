import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Level } from 'level';
import { cronJobSchema, type CronJob, type CronRun } from './cron/job.js';
import { nextRunAfter } from './cron/schedule.js';

export {
  cronJobSchema,
  newCronJobId,
  type CronJob,
  type CronRun,
  type CronSchedule,
  type CronTask,
} from './cron/job.js';

export type CronStoreErrorCode = 'cron_store_locked' | 'cron_store_unavailable';

export class CronStoreError extends Error {
  constructor(
    readonly code: CronStoreErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'CronStoreError';
  }
}

/** A record that did not parse as a job: left in place, skipped, and reported. */
export interface SkippedCronRecord {
  key: string;
  reason: string;
}

export interface ListOptions {
  onSkipped?: (record: SkippedCronRecord) => void;
  /** Called each time the database was locked by another holder and the listing waits to try again. */
  onLocked?: () => void;
}

/** What a finished run leaves behind: a next run, or (one-shots) a disabled or removed job. */
export type CronRunAfter = { then: 'reschedule'; next_run_at: string } | { then: 'disable' } | { then: 'remove' };

type CronLevel = Level<string, unknown>;

/** The jobs database is the workspace's `cron/` directory itself. */
export function cronDir(workspace: string): string {
  return join(workspace, 'cron');
}

// Another process (the gateway, `tern cron add`, the launcher) may hold the LOCK for the few milliseconds of
// one operation; waiting this long covers many of those without making a CLI call feel stuck.
const LOCK_RETRIES = 60;
const LOCK_RETRY_MS = 50;

function isLocked(error: unknown): boolean {
  return (error as { cause?: { code?: unknown } }).cause?.code === 'LEVEL_LOCKED';
}

// Loaded on first use: the gateway reads its jobs after it is ready, and parsing level up front costs start time.
let levelModule: Promise<typeof import('level')> | undefined;

async function openWithRetry(dir: string, onLocked?: () => void): Promise<CronLevel> {
  mkdirSync(dir, { recursive: true });
  const { Level: LevelDb } = await (levelModule ??= import('level'));
  for (let attempt = 0; ; attempt += 1) {
    const db: CronLevel = new LevelDb<string, unknown>(dir, { valueEncoding: 'json' });
    try {
      await db.open();
      return db;
    } catch (error) {
      if (!isLocked(error))
        throw new CronStoreError('cron_store_unavailable', `cannot open the cron database at ${dir}`, { cause: error });
      if (attempt >= LOCK_RETRIES)
        throw new CronStoreError('cron_store_locked', `the cron database at ${dir} stays locked by another process`, {
          cause: error,
        });
      onLocked?.();
      await sleep(LOCK_RETRY_MS);
    }
  }
}

// Opening twice in one process fails the same way as across processes, so operations here take turns.
const queues = new Map<string, Promise<unknown>>();

function withDb<T>(workspace: string, operation: (db: CronLevel) => Promise<T>, onLocked?: () => void): Promise<T> {
  const dir = resolve(cronDir(workspace));
  const run = async () => {
    const db = await openWithRetry(dir, onLocked);
    try {
      return await operation(db);
    } finally {
      await db.close();
    }
  };
  const result = (queues.get(dir) ?? Promise.resolve()).then(run);
  const settled = result.then(
    () => undefined,
    () => undefined,
  );
  queues.set(dir, settled);
  void settled.then(() => {
    if (queues.get(dir) === settled) queues.delete(dir);
  });
  return result;
}

const JOB_PREFIX = 'job:';

function warnSkipped({ key, reason }: SkippedCronRecord): void {
  process.emitWarning(`cron record ${key} skipped: ${reason}`, { code: 'TERN_CRON_RECORD_SKIPPED' });
}

async function readJobs(db: CronLevel, onSkipped: (record: SkippedCronRecord) => void): Promise<CronJob[]> {
  const jobs: CronJob[] = [];
  for await (const [key, value] of db.iterator({ gte: JOB_PREFIX, lt: `${JOB_PREFIX}\uffff` })) {
    const parsed = cronJobSchema.safeParse(value);
    if (parsed.success) jobs.push(parsed.data);
    else
      onSkipped({
        key,
        reason: parsed.error.issues.map((i) => `${i.path.join('.') || '(record)'}: ${i.message}`).join('; '),
      });
  }
  return jobs.sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
}

async function readJob(db: CronLevel, id: string): Promise<CronJob | undefined> {
  const parsed = cronJobSchema.safeParse(await db.get(JOB_PREFIX + id));
  return parsed.success ? parsed.data : undefined;
}

async function updateJob(
  workspace: string,
  id: string,
  change: (job: CronJob) => CronJob | undefined,
): Promise<CronJob | undefined> {
  return withDb(workspace, async (db) => {
    const job = await readJob(db, id);
    if (!job) return undefined;
    const next = change(job);
    if (next) await db.put(JOB_PREFIX + id, cronJobSchema.parse(next));
    else await db.del(JOB_PREFIX + id);
    return next ?? job;
  });
}

/** Every valid job, oldest first. A record that does not parse is skipped with a warning. */
export function listCronJobs(workspace: string, options: ListOptions = {}): Promise<CronJob[]> {
  return withDb(workspace, (db) => readJobs(db, options.onSkipped ?? warnSkipped), options.onLocked);
}

export function getCronJob(workspace: string, id: string): Promise<CronJob | undefined> {
  return withDb(workspace, (db) => readJob(db, id));
}

/** Adds or replaces a job (validated first: a bad job throws a ZodError and nothing is written). */
export async function putCronJob(workspace: string, job: CronJob): Promise<CronJob> {
  const valid = cronJobSchema.parse(job);
  await withDb(workspace, (db) => db.put(JOB_PREFIX + valid.id, valid));
  return valid;
}

/** Returns the removed job, or undefined when no job has this id. */
export function removeCronJob(workspace: string, id: string): Promise<CronJob | undefined> {
  return updateJob(workspace, id, () => undefined);
}

/**
 * Returns the updated job, or undefined when no job has this id. Enabling counts the next run from `now`,
 * so runs missed while it was off are not made up; a one-shot whose time has passed runs once.
 */
export function setCronJobEnabled(
  workspace: string,
  id: string,
  enabled: boolean,
  now = new Date(),
): Promise<CronJob | undefined> {
  return updateJob(workspace, id, (job) => {
    if (!enabled) return { ...job, enabled };
    const { next_run_at: _stale, ...rest } = job;
    const next = nextRunAfter(job.schedule, now);
    return next ? { ...rest, enabled, next_run_at: next.toISOString() } : { ...rest, enabled };
  });
}

/** Stores the outcome of a run and what follows it. Returns the job as it was updated (or removed). */
export function recordCronRun(
  workspace: string,
  id: string,
  run: CronRun,
  after: CronRunAfter,
): Promise<CronJob | undefined> {
  return updateJob(workspace, id, (job) => {
    const { next_run_at: _previous, ...rest } = job;
    switch (after.then) {
      case 'reschedule':
        return { ...rest, last_run: run, next_run_at: after.next_run_at };
      case 'disable':
        return { ...rest, last_run: run, enabled: false };
      case 'remove':
        return undefined;
    }
  });
}
