import * as z from 'zod';
import { cronScheduleSchema, type CronJob, type CronSchedule } from './job.js';
import { CronScheduleError, newCronJob } from './new-job.js';

/** What a person fills in to add a job: `tern cron add --every …` flags and the dashboard's form alike. */
export const CRON_FIELDS = [
  'name',
  'every',
  'at',
  'cron',
  'tz',
  'message',
  'deliver',
  'command',
  'channel',
  'chat',
  'agent',
] as const;
export type CronFields = Partial<Record<(typeof CRON_FIELDS)[number], string>>;

export type CronFieldsErrorCode = 'usage' | 'cron_command_disabled' | 'cron_schedule_past';

/** A job that cannot be added, worded once for the CLI and the dashboard: what failed, why, and the fix. */
export class CronFieldsError extends Error {
  constructor(
    readonly code: CronFieldsErrorCode,
    readonly what: string,
    readonly why: string,
    readonly fix?: string,
  ) {
    super(`${what} (${why})`);
    this.name = 'CronFieldsError';
  }
}

const usage = (why: string) => new CronFieldsError('usage', 'wrong usage', why);
const DURATION = /^(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/;

function exactlyOne(fields: CronFields, names: ReadonlyArray<keyof CronFields>, what: string): keyof CronFields {
  const given = names.filter((name) => fields[name] !== undefined);
  if (given.length === 1) return given[0]!;
  const allowed = names.map((f) => `--${f}`).join(', ');
  throw usage(
    given.length === 0
      ? `cron add needs ${what}: one of ${allowed}`
      : `${given.map((f) => `--${f}`).join(' and ')} cannot be combined (allowed: one of ${allowed})`,
  );
}

function seconds(value: string): number {
  const units = DURATION.exec(value);
  const sizes = [86_400, 3600, 60, 1];
  const total = /^\d+$/.test(value)
    ? Number(value)
    : units
      ? sizes.reduce((sum, size, i) => sum + Number(units[i + 1] ?? 0) * size, 0)
      : 0;
  if (total <= 0)
    throw usage(`--every "${value}" is not a duration (allowed: seconds such as 90, or 30s, 10m, 2h, 1d, 1h30m)`);
  return total;
}

function scheduleFrom(fields: CronFields): CronSchedule {
  const flag = exactlyOne(fields, ['every', 'at', 'cron'], 'a schedule');
  const value = fields[flag]!;
  const tz = fields.tz;
  if (tz !== undefined && flag !== 'cron') throw usage('--tz goes with --cron only');
  const draft =
    flag === 'every'
      ? { kind: 'every', seconds: seconds(value) }
      : flag === 'at'
        ? { kind: 'at', at: value }
        : { kind: 'cron', expr: value, ...(tz ? { tz } : {}) };
  const parsed = cronScheduleSchema.safeParse(draft);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  if (flag === 'at')
    throw usage(`--at "${value}" is not an ISO time (allowed: e.g. 2026-03-01T09:00:00Z or 2026-03-01T10:00:00+01:00)`);
  throw usage(`--${issue.path.at(-1) === 'tz' ? 'tz' : 'cron'}: ${issue.message}`);
}

function target(fields: CronFields, flag: string): { channel: string; chat: string } | undefined {
  const { channel, chat } = fields;
  if (channel && chat) return { channel, chat };
  if (channel === undefined && chat === undefined) return undefined;
  throw usage(`--${flag} needs both --channel and --chat (where the result goes)`);
}

function taskFrom(fields: CronFields, commandsAllowed: boolean): CronJob['job'] {
  const flag = exactlyOne(fields, ['message', 'deliver', 'command'], 'a task');
  const value = fields[flag]!;
  const where = target(fields, flag);
  const agent = fields.agent;
  if (agent !== undefined && flag !== 'message') throw usage('--agent goes with --message only');
  if (flag === 'command') {
    if (!commandsAllowed)
      throw new CronFieldsError(
        'cron_command_disabled',
        'a command job cannot be added',
        'tools.exec.enabled is false, so command jobs never run',
        'Set tools.exec.enabled to true in the config first.',
      );
    return { kind: 'command', command: value, ...where };
  }
  if (!where) throw usage(`--${flag} needs --channel and --chat (where the result goes)`);
  return flag === 'deliver'
    ? { kind: 'deliver', ...where, text: value }
    : { kind: 'agent_turn', ...(agent ? { agent } : {}), ...where, message: value };
}

/**
 * A new, enabled job from the fields a person gave, checked as `tern cron add` checks its flags (the messages name
 * the flags); `commandsAllowed` is `tools.exec.enabled`. Throws a CronFieldsError.
 */
export function cronJobFromFields(
  fields: CronFields,
  options: { commandsAllowed: boolean; createdBy: CronJob['created_by']; now: Date },
): CronJob {
  const schedule = scheduleFrom(fields);
  const task = taskFrom(fields, options.commandsAllowed);
  const name =
    fields.name ??
    (task.kind === 'command' ? task.command : task.kind === 'deliver' ? task.text : task.message).slice(0, 30);
  try {
    return newCronJob({ name, schedule, job: task, created_by: options.createdBy }, options.now);
  } catch (error) {
    if (error instanceof CronScheduleError)
      throw new CronFieldsError(
        error.code,
        'the job would never run',
        error.message,
        'Give an --at time in the future.',
      );
    if (error instanceof z.ZodError)
      throw usage(error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
    throw error;
  }
}
