import {
  CronStoreError,
  listCronJobs,
  putCronJob,
  removeCronJob,
  setCronJobEnabled,
  type CronJob,
} from '../../../store/cron-db.js';
import {
  CRON_FIELDS,
  CronFieldsError,
  cronJobFromFields,
  type CronFields,
} from '../../../store/cron/job-from-fields.js';
import { describeSchedule, describeTask } from '../../tools/cron/describe.js';
import { print, type CommandContext } from '../command.js';
import { CliError, subcommandError, UsageError } from '../errors.js';
import { readConfigForCli } from '../load-config.js';
import { columns } from '../table.js';

const SUBCOMMANDS = ['list', 'add', 'remove', 'enable', 'disable'] as const;
const HELP = 'Run `tern cron --help`.';

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

/** The `cron add` flags given, as the fields a job is made from. */
function fieldsOf(context: CommandContext): CronFields {
  const given = CRON_FIELDS.flatMap((flag) => {
    const value = context.values[flag];
    return typeof value === 'string' ? [[flag, value] as const] : [];
  });
  return Object.fromEntries(given);
}

function summary(job: CronJob): string {
  return `${job.id} (${job.name}): ${describeSchedule(job.schedule)}, ${describeTask(job.job)}`;
}

async function add(context: CommandContext): Promise<number> {
  const loaded = readConfigForCli(context.env);
  let job: CronJob;
  try {
    job = cronJobFromFields(fieldsOf(context), {
      commandsAllowed: loaded.config.tools.exec.enabled,
      createdBy: { channel: 'cli' },
      now: new Date(),
    });
  } catch (error) {
    if (!(error instanceof CronFieldsError)) throw error;
    if (error.code === 'usage') throw new UsageError(error.why, HELP);
    throw new CliError(error.code, error.what, error.why, error.fix ?? HELP);
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
  return columns(['ID', 'NAME', 'SCHEDULE', 'TASK', 'ENABLED', 'NEXT RUN', 'LAST RUN'], rows);
}

async function list(context: CommandContext): Promise<number> {
  const { workspace } = readConfigForCli(context.env);
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
  const { workspace } = readConfigForCli(context.env);
  const job = await store(() =>
    sub === 'remove' ? removeCronJob(workspace, id) : setCronJobEnabled(workspace, id, sub === 'enable'),
  );
  if (!job) throw await unknownJob(workspace, id);
  const done = { remove: 'removed', enable: 'enabled', disable: 'disabled' }[sub];
  if (context.json) print(context.stdout, JSON.stringify({ ok: true, [sub === 'remove' ? 'removed' : 'job']: job }));
  else
    print(
      context.stdout,
      `${done} cron job ${job.id} ` +
        `(${job.name})${sub === 'enable' && job.next_run_at ? `; next run ${job.next_run_at}` : ''}`,
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
      throw subcommandError('cron', sub, SUBCOMMANDS);
  }
}
