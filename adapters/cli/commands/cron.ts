import * as z from 'zod';
import { ConfigError, loadConfig, type LoadedConfig } from '../../../store/config/index.js';
import {
  CronStoreError,
  listCronJobs,
  putCronJob,
  removeCronJob,
  setCronJobEnabled,
  type CronJob,
} from '../../../store/cron-db.js';
import { cronScheduleSchema, type CronSchedule } from '../../../store/cron/job.js';
import { CronScheduleError, newCronJob } from '../../../store/cron/new-job.js';
import { describeSchedule, describeTask } from '../../tools/cron/describe.js';
import { print, type CommandContext } from '../command.js';
import { CliError, UsageError } from '../errors.js';

const SUBCOMMANDS = ['list', 'add', 'remove', 'enable', 'disable'] as const;
const HELP = 'Run `tern cron --help`.';
const DURATION = /^(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/;

function load(context: CommandContext): LoadedConfig {
  try {
    return loadConfig({ env: context.env, rewrite: false });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    throw new CliError(
      error.code,
      `the config ${error.file} cannot be used`,
      error.problems.join('; '),
      'Fix it and run `tern config validate`.',
    );
  }
}

/** The store's lock or I/O failures, as the one line the user reads. */
async function store<T>(operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    if (!(error instanceof CronStoreError)) throw error;
    throw new CliError(
      error.code,
      'the cron database cannot be used',
      error.message,
      'Try again in a moment; if it persists, check the workspace cron/ folder.',
    );
  }
}

function text(context: CommandContext, flag: string): string | undefined {
  const value = context.values[flag];
  return typeof value === 'string' ? value : undefined;
}

function exactlyOne(context: CommandContext, flags: readonly string[], what: string): string {
  const given = flags.filter((flag) => text(context, flag) !== undefined);
  if (given.length === 1) return given[0]!;
  const allowed = flags.map((f) => `--${f}`).join(', ');
  throw new UsageError(
    given.length === 0
      ? `cron add needs ${what}: one of ${allowed}`
      : `${given.map((f) => `--${f}`).join(' and ')} cannot be combined (allowed: one of ${allowed})`,
    HELP,
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
    throw new UsageError(
      `--every "${value}" is not a duration (allowed: seconds such as 90, or 30s, 10m, 2h, 1d, 1h30m)`,
      HELP,
    );
  return total;
}

function scheduleFrom(context: CommandContext): CronSchedule {
  const flag = exactlyOne(context, ['every', 'at', 'cron'], 'a schedule');
  const value = text(context, flag)!;
  const tz = text(context, 'tz');
  if (tz !== undefined && flag !== 'cron') throw new UsageError('--tz goes with --cron only', HELP);
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
    throw new UsageError(
      `--at "${value}" is not an ISO time (allowed: e.g. 2026-03-01T09:00:00Z or 2026-03-01T10:00:00+01:00)`,
      HELP,
    );
  throw new UsageError(`--${issue.path.at(-1) === 'tz' ? 'tz' : 'cron'}: ${issue.message}`, HELP);
}

function target(context: CommandContext, flag: string): { channel: string; chat: string } | undefined {
  const channel = text(context, 'channel');
  const chat = text(context, 'chat');
  if (channel && chat) return { channel, chat };
  if (channel === undefined && chat === undefined) return undefined;
  throw new UsageError(`--${flag} needs both --channel and --chat (where the result goes)`, HELP);
}

function taskFrom(context: CommandContext, loaded: LoadedConfig): CronJob['job'] {
  const flag = exactlyOne(context, ['message', 'deliver', 'command'], 'a task');
  const value = text(context, flag)!;
  const where = target(context, flag);
  const agent = text(context, 'agent');
  if (agent !== undefined && flag !== 'message') throw new UsageError('--agent goes with --message only', HELP);
  if (flag === 'command') {
    if (!loaded.config.tools.exec.enabled) {
      throw new CliError(
        'cron_command_disabled',
        'a command job cannot be added',
        'tools.exec.enabled is false, so command jobs never run',
        'Set tools.exec.enabled to true in the config first.',
      );
    }
    return { kind: 'command', command: value, ...where };
  }
  if (!where) throw new UsageError(`--${flag} needs --channel and --chat (where the result goes)`, HELP);
  return flag === 'deliver'
    ? { kind: 'deliver', ...where, text: value }
    : { kind: 'agent_turn', ...(agent ? { agent } : {}), ...where, message: value };
}

function summary(job: CronJob): string {
  return `${job.id} (${job.name}): ${describeSchedule(job.schedule)}, ${describeTask(job.job)}`;
}

async function add(context: CommandContext): Promise<number> {
  const loaded = load(context);
  const schedule = scheduleFrom(context);
  const task = taskFrom(context, loaded);
  const name =
    text(context, 'name') ??
    (task.kind === 'command' ? task.command : task.kind === 'deliver' ? task.text : task.message).slice(0, 30);
  let job: CronJob;
  try {
    job = newCronJob({ name, schedule, job: task, created_by: { channel: 'cli' } }, new Date());
  } catch (error) {
    if (error instanceof CronScheduleError)
      throw new CliError(error.code, 'the job would never run', error.message, 'Give an --at time in the future.');
    if (error instanceof z.ZodError)
      throw new UsageError(error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '), HELP);
    throw error;
  }
  await store(() => putCronJob(loaded.workspace, job));
  if (context.json) print(context.stdout, JSON.stringify({ ok: true, job }));
  else print(context.stdout, `added cron job ${summary(job)}; next run ${job.next_run_at}`);
  return 0;
}

function table(jobs: CronJob[]): string {
  const rows = jobs.map((j) => [
    j.id,
    j.name,
    describeSchedule(j.schedule),
    describeTask(j.job),
    j.enabled ? 'yes' : 'no',
    j.next_run_at ?? '-',
    j.last_run ? `${j.last_run.outcome} ${j.last_run.at}` : '-',
  ]);
  const all = [['ID', 'NAME', 'SCHEDULE', 'TASK', 'ENABLED', 'NEXT RUN', 'LAST RUN'], ...rows];
  const widths = all[0]!.map((_, i) => Math.max(...all.map((row) => row[i]!.length)));
  return all
    .map((row) =>
      row
        .map((cell, i) => cell.padEnd(widths[i]!))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

async function list(context: CommandContext): Promise<number> {
  const { workspace } = load(context);
  const skipped: string[] = [];
  const jobs = await store(() =>
    listCronJobs(workspace, { onSkipped: ({ key, reason }) => skipped.push(`${key}: ${reason}`) }),
  );
  skipped.forEach((line) => print(context.stderr, `tern: warning: a cron record was skipped (${line})`));
  if (context.json) print(context.stdout, JSON.stringify({ ok: true, jobs }));
  else print(context.stdout, jobs.length === 0 ? 'no scheduled jobs' : table(jobs));
  return 0;
}

async function unknownJob(workspace: string, id: string): Promise<CliError> {
  const ids = (await store(() => listCronJobs(workspace, { onSkipped: () => {} }))).map((j) => j.id);
  return new CliError(
    'cron_job_unknown',
    `no cron job with id "${id}"`,
    `ids: ${ids.join(', ') || 'none'}`,
    'Run `tern cron list` to see the jobs.',
  );
}

async function change(context: CommandContext, sub: 'remove' | 'enable' | 'disable'): Promise<number> {
  const id = context.positionals[1];
  if (!id)
    throw new UsageError(
      `cron ${sub} needs a job id`,
      `Run \`tern cron ${sub} ID\`; \`tern cron list\` shows the ids.`,
    );
  const { workspace } = load(context);
  const job = await store(() =>
    sub === 'remove' ? removeCronJob(workspace, id) : setCronJobEnabled(workspace, id, sub === 'enable'),
  );
  if (!job) throw await unknownJob(workspace, id);
  const done = { remove: 'removed', enable: 'enabled', disable: 'disabled' }[sub];
  if (context.json) print(context.stdout, JSON.stringify({ ok: true, [sub === 'remove' ? 'removed' : 'job']: job }));
  else
    print(
      context.stdout,
      `${done} cron job ${job.id} (${job.name})${sub === 'enable' && job.next_run_at ? `; next run ${job.next_run_at}` : ''}`,
    );
  return 0;
}

export async function run(context: CommandContext): Promise<number> {
  const [sub] = context.positionals;
  switch (sub) {
    case 'list':
      return list(context);
    case 'add':
      return add(context);
    case 'remove':
    case 'enable':
    case 'disable':
      return change(context, sub);
    default:
      throw new UsageError(
        sub
          ? `unknown subcommand "${sub}" (allowed: ${SUBCOMMANDS.join(', ')})`
          : `cron needs a subcommand (allowed: ${SUBCOMMANDS.join(', ')})`,
        HELP,
      );
  }
}
