import { randomBytes } from 'node:crypto';
import * as z from 'zod';
import { checkCron, checkTimeZone, CronExpressionError, TimeZoneError } from './schedule.js';

const isoTime = z.iso.datetime({ offset: true });
const nonBlank = z.string().trim().min(1);

function issue(ctx: z.RefinementCtx, path: string, check: () => void): void {
  try {
    check();
  } catch (error) {
    if (!(error instanceof CronExpressionError || error instanceof TimeZoneError)) throw error;
    ctx.addIssue({ code: 'custom', path: [path], message: error.message });
  }
}

function checkSchedule(schedule: { expr: string; tz?: string | undefined }, ctx: z.RefinementCtx): void {
  issue(ctx, 'expr', () => checkCron(schedule.expr));
  if (schedule.tz !== undefined) issue(ctx, 'tz', () => checkTimeZone(schedule.tz!));
}

export const cronScheduleSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('every'), seconds: z.number().int().positive() }),
  /** One-shot: runs once at `at`, then is removed. */
  z.object({ kind: z.literal('at'), at: isoTime }),
  /** Five fields: minute hour day-of-month month day-of-week; `tz` is an IANA zone, default UTC. */
  z.object({ kind: z.literal('cron'), expr: nonBlank, tz: nonBlank.optional() }).superRefine(checkSchedule),
]);

export const cronTaskSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('deliver'), channel: nonBlank, chat: nonBlank, text: nonBlank }),
  z.object({ kind: z.literal('agent_turn'), agent: nonBlank.optional(), channel: nonBlank, chat: nonBlank, message: nonBlank }),
  z.object({ kind: z.literal('command'), command: nonBlank, channel: nonBlank.optional(), chat: nonBlank.optional() }),
]);

export const cronRunSchema = z.object({
  at: isoTime,
  outcome: z.enum(['ok', 'failed', 'skipped']),
  detail: z.string().optional(),
});

export const cronJobSchema = z.object({
  id: nonBlank,
  name: z.string(),
  schedule: cronScheduleSchema,
  job: cronTaskSchema,
  enabled: z.boolean(),
  created_at: isoTime,
  /** Who scheduled it: the remote gates of command jobs look at this channel and chat. */
  created_by: z.object({ channel: nonBlank, chat: nonBlank.optional() }),
  next_run_at: isoTime.optional(),
  last_run: cronRunSchema.optional(),
});

export type CronSchedule = z.infer<typeof cronScheduleSchema>;
export type CronTask = z.infer<typeof cronTaskSchema>;
export type CronRun = z.infer<typeof cronRunSchema>;
export type CronJob = z.infer<typeof cronJobSchema>;

/** Short enough to type in `tern cron remove ID`, random enough never to collide in one workspace. */
export function newCronJobId(): string {
  return randomBytes(4).toString('hex');
}
