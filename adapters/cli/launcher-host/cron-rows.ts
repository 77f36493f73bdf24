import type { Logger } from '../../../store/logs/logger.js';
import { listCronJobs, type CronJob, type CronSchedule } from '../../../store/cron-db.js';

/** One job as the Cron page lists it. */
export type CronRow = {
  id: string;
  name: string;
  schedule: string;
  kind: CronJob['job']['kind'];
  enabled: boolean;
  next_run: string;
  last_outcome: string;
};

function scheduleText(schedule: CronSchedule): string {
  switch (schedule.kind) {
    case 'every':
      return `every ${schedule.seconds} s`;
    case 'at':
      return `once at ${schedule.at}`;
    case 'cron':
      return `cron ${schedule.expr} (${schedule.tz ?? 'UTC'})`;
  }
}

function outcomeText(job: CronJob): string {
  const run = job.last_run;
  if (!run) return 'never ran';
  return `${run.outcome} at ${run.at}${run.detail ? `: ${run.detail}` : ''}`;
}

/** The workspace's cron jobs, read from the jobs database (any process may, one operation at a time). */
export async function cronRows(workspace: string, logger: Logger | undefined): Promise<CronRow[]> {
  const jobs = await listCronJobs(workspace, {
    onSkipped: ({ key, reason }) => logger?.warn('cron record skipped', { key, reason }),
  });
  return jobs.map((job) => ({
    id: job.id,
    name: job.name,
    schedule: scheduleText(job.schedule),
    kind: job.job.kind,
    enabled: job.enabled,
    next_run: job.next_run_at ?? '',
    last_outcome: outcomeText(job),
  }));
}
