import { cronJobSchema, newCronJobId, type CronJob } from './job.js';
import { nextRunAfter } from './schedule.js';

export type NewCronJob = Pick<CronJob, 'name' | 'schedule' | 'job' | 'created_by'>;

/** A one-shot whose time has passed cannot be added. */
export class CronScheduleError extends Error {
  readonly code = 'cron_schedule_past';
  constructor(message: string) {
    super(message);
    this.name = 'CronScheduleError';
  }
}

/**
 * A complete, validated job from what the user chose: a fresh id, enabled, and its first run.
 * Throws a ZodError for bad fields, a CronScheduleError for a one-shot in the past.
 */
export function newCronJob(input: NewCronJob, now: Date): CronJob {
  const draft = cronJobSchema.parse({ ...input, id: newCronJobId(), enabled: true, created_at: now.toISOString() });
  const next = nextRunAfter(draft.schedule, now);
  if (!next) {
    const when = draft.schedule.kind === 'at' ? draft.schedule.at : `the ${draft.schedule.kind} schedule`;
    throw new CronScheduleError(`${when} is not after ${now.toISOString()}`);
  }
  return { ...draft, next_run_at: next.toISOString() };
}
