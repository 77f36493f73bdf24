import { randomBytes } from 'node:crypto';
import * as z from 'zod';
import { cronScheduleSchema } from './schedule.js';

export { cronScheduleSchema, type CronSchedule } from './schedule.js';

const isoTime = z.iso.datetime({ offset: true });
const nonBlank = z.string().trim().min(1);

export const cronTaskSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('deliver'), channel: nonBlank, chat: nonBlank, text: nonBlank }),
  z.object({
    kind: z.literal('agent_turn'),
    agent: nonBlank.optional(),
    channel: nonBlank,
    chat: nonBlank,
    message: nonBlank,
  }),
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

export type CronTask = z.infer<typeof cronTaskSchema>;
export type CronRun = z.infer<typeof cronRunSchema>;
export type CronJob = z.infer<typeof cronJobSchema>;

/** Short enough to type in `tern cron remove ID`, random enough never to collide in one workspace. */
export function newCronJobId(): string {
  return randomBytes(4).toString('hex');
}
