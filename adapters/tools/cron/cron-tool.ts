import * as z from 'zod';
import {
  getCronJob,
  listCronJobs,
  putCronJob,
  removeCronJob,
  setCronJobEnabled,
  type CronJob,
  type CronSchedule,
} from '../../../store/cron-db.js';
import { CronScheduleError, newCronJob } from '../../../store/cron/new-job.js';
import { ExecGuard } from '../exec/exec-guard.js';
import type { ExecOptions } from '../options.js';
import type { Sandbox } from '../sandbox/sandbox.js';
import { fail, ok, type Tool, type ToolContext, type ToolResult } from '../tool.js';
import { describeSchedule, describeTask } from './describe.js';
import { isRemoteChannel, remoteMayScheduleCommands } from './remotes.js';

/** `tools.cron` in plain shapes (see `actors/cron/tool-options.ts`). */
export interface CronToolOptions {
  enabled: boolean;
  allowCommand: boolean;
  commandAllowedRemotes: string[];
  now?: () => Date;
}

const parameters = z.object({
  action: z
    .enum(['add', 'list', 'remove', 'enable', 'disable'])
    .describe('What to do. Use add when the user asks to be reminded or to schedule a task.'),
  message: z.string().optional().describe('add: the reminder text, or with deliver false the task for the agent'),
  deliver: z
    .boolean()
    .optional()
    .describe('add: true (default) sends message as it is; false runs an agent turn with it and sends the reply'),
  command: z
    .string()
    .optional()
    .describe('add: a shell command to run on schedule instead; its output is sent to this chat'),
  command_confirm: z
    .boolean()
    .optional()
    .describe('add: must be true for a command job when tools.cron.allow_command is false'),
  at_seconds: z.number().int().optional().describe('add: run once, this many seconds from now (600 = in 10 minutes)'),
  every_seconds: z.number().int().optional().describe('add: repeat every this many seconds (3600 = hourly)'),
  cron_expr: z
    .string()
    .optional()
    .describe('add: repeat on a 5-field cron expression, e.g. "0 9 * * 1-5" (weekdays 09:00)'),
  tz: z.string().optional().describe('add: IANA time zone of cron_expr (default UTC)'),
  name: z.string().optional().describe('add: a short name (default: the start of the message)'),
  job_id: z.string().optional().describe('remove, enable, disable: the job id'),
});

type Args = z.infer<typeof parameters>;

// Models often send every optional field, unused ones as 0 or "": those count as not given.
const given = <T>(value: T | undefined): value is T => value !== undefined && value !== 0 && value !== '';

function scheduleOf(args: Args, now: Date): CronSchedule | string {
  const chosen = [
    given(args.at_seconds)
      ? { kind: 'at' as const, at: new Date(now.getTime() + args.at_seconds * 1000).toISOString() }
      : undefined,
    given(args.every_seconds) ? { kind: 'every' as const, seconds: args.every_seconds } : undefined,
    given(args.cron_expr)
      ? { kind: 'cron' as const, expr: args.cron_expr, ...(given(args.tz) ? { tz: args.tz } : {}) }
      : undefined,
  ].filter((s) => s !== undefined);
  if (chosen.length !== 1)
    return `add needs exactly one of at_seconds, every_seconds, cron_expr (got ${chosen.length})`;
  return chosen[0]!;
}

/** Who may see and change a job: this machine sees all; a remote chat only the jobs it scheduled. */
function mayTouch(job: CronJob, context: ToolContext, options: CronToolOptions): boolean {
  if (!isRemoteChannel(context.channel)) return true;
  if (job.created_by.channel !== context.channel || job.created_by.chat !== context.chat) return false;
  return (
    job.job.kind !== 'command' ||
    remoteMayScheduleCommands(context.channel, context.chat, options.commandAllowedRemotes)
  );
}

class CronTool {
  private guard: ExecGuard | undefined;

  constructor(
    private readonly options: CronToolOptions,
    private readonly sandbox: Sandbox,
    private readonly exec: ExecOptions,
  ) {}

  private commandRefusal(args: Args, command: string, context: ToolContext): string | undefined {
    if (!this.exec.enabled)
      return 'command jobs need tools.exec.enabled: true (the exec tool is off, so they would never run)';
    if (
      isRemoteChannel(context.channel) &&
      !remoteMayScheduleCommands(context.channel, context.chat, this.options.commandAllowedRemotes)
    ) {
      return (
        `command jobs from ${context.channel}:${context.chat} are refused: it is not listed in ` +
        `tools.cron.command_allowed_remotes (entries: <channel>, <channel>:<chat_id>, *)`
      );
    }
    if (!this.options.allowCommand && args.command_confirm !== true)
      return (
        'command jobs need command_confirm: true (tools.cron.allow_command ' +
        'is false); ask the user to confirm first'
      );
    this.guard ??= new ExecGuard(this.exec, this.sandbox);
    const verdict = this.guard.check(command, this.sandbox.workspace, false);
    return verdict.allowed ? undefined : `the command is refused: ${verdict.message}`;
  }

  private taskOf(args: Args, context: ToolContext): CronJob['job'] | string {
    const target = { channel: context.channel, chat: context.chat };
    if (given(args.command)) {
      const refusal = this.commandRefusal(args, args.command, context);
      if (refusal) return refusal;
      return { kind: 'command', command: args.command, ...(isRemoteChannel(context.channel) ? target : {}) };
    }
    if (!given(args.message)) return 'add needs message (or command)';
    if (!isRemoteChannel(context.channel))
      return (
        `a reminder needs a chat to go to, and the "${context.channel}" channel has ` +
        `none; schedule it from a chat, or with \`tern cron add --channel --chat\``
      );
    return args.deliver === false
      ? { kind: 'agent_turn', agent: context.agent, ...target, message: args.message }
      : { kind: 'deliver', ...target, text: args.message };
  }

  async add(args: Args, context: ToolContext): Promise<ToolResult> {
    const now = this.options.now?.() ?? new Date();
    const schedule = scheduleOf(args, now);
    if (typeof schedule === 'string') return fail(schedule);
    const task = this.taskOf(args, context);
    if (typeof task === 'string') return fail(task);
    const text = task.kind === 'command' ? task.command : task.kind === 'deliver' ? task.text : task.message;
    try {
      const job = newCronJob(
        {
          name: given(args.name) ? args.name : text.slice(0, 30),
          schedule,
          job: task,
          created_by: { channel: context.channel, chat: context.chat },
        },
        now,
      );
      await putCronJob(context.workspace, job);
      return ok(
        `Cron job added: ${job.name} (id: ${job.id}), ${describeSchedule(job.schedule)}, ` +
          `${describeTask(job.job)}; next run ${job.next_run_at}`,
      );
    } catch (error) {
      if (error instanceof z.ZodError)
        return fail(`add: ${error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
      if (error instanceof CronScheduleError) return fail(`add: ${error.message}`);
      throw error;
    }
  }

  async list(context: ToolContext): Promise<ToolResult> {
    const jobs = (await listCronJobs(context.workspace, { onSkipped: () => {} })).filter((job) =>
      mayTouch(job, context, this.options),
    );
    if (jobs.length === 0) return ok('No scheduled jobs');
    const lines = jobs.map(
      (j) =>
        `- ${j.name} (id: ${j.id}, ${describeSchedule(j.schedule)}, ${describeTask(j.job)}, ` +
        `${j.enabled ? `next run ${j.next_run_at ?? 'now'}` : 'disabled'})`,
    );
    return ok(['Scheduled jobs:', ...lines].join('\n'));
  }

  async change(
    action: 'remove' | 'enable' | 'disable',
    id: string | undefined,
    context: ToolContext,
  ): Promise<ToolResult> {
    if (!given(id)) return fail(`${action} needs job_id (see action list)`);
    const job = await getCronJob(context.workspace, id);
    if (!job || !mayTouch(job, context, this.options)) return fail(`job ${id} not found (see action list)`);
    if (action === 'remove') await removeCronJob(context.workspace, id);
    else await setCronJobEnabled(context.workspace, id, action === 'enable', this.options.now?.());
    return ok(`Cron job ${action === 'remove' ? 'removed' : `${action}d`}: ${job.name} (id: ${id})`);
  }
}

/** `cron`: the agent schedules reminders, agent turns and (behind the gates of tools.cron) commands. */
export function cronTool(options: CronToolOptions, sandbox: Sandbox, exec: ExecOptions): Tool<Args> {
  const tool = new CronTool(options, sandbox, exec);
  return {
    name: 'cron',
    description:
      'Schedule reminders, recurring tasks or shell commands for this chat. When the user asks ' +
      'to be reminded or to schedule something, call this. at_seconds for once ("in 10 ' +
      'minutes" = 600), every_seconds for a fixed interval, cron_expr for calendar times.',
    parameters,
    async execute(args, context) {
      switch (args.action) {
        case 'add':
          return tool.add(args, context);
        case 'list':
          return tool.list(context);
        default:
          return tool.change(args.action, args.job_id, context);
      }
    },
  };
}
