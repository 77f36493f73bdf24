import { isRemoteChannel } from '../../adapters/tools/cron/remotes.js';
import { holderOf } from '../../adapters/tools/messaging/send-result.js';
import type { SendOutcome, SendTarget } from '../../adapters/tools/options.js';
import type { ToolResult } from '../../adapters/tools/tool.js';
import type { Config } from '../../store/config/index.js';
import type { CronJob, CronRun } from '../../store/cron-db.js';

/** What an `agent_turn` job asks of the agent; the session is keyed by `job`. */
export interface CronTurnRequest {
  job: string;
  run: string;
  agent?: string;
  channel: string;
  chat: string;
  message: string;
  /** Scheduled from a chat reached over a network: the turn's tools apply their remote rules. */
  remote: boolean;
}

export type CronTurnResult = { ok: true; text: string } | { ok: false; reason: string };

/** How a job reaches the world: given by the host, so the actor never reaches into channels itself. */
export interface CronEffects {
  send(target: SendTarget, text: string): Promise<SendOutcome>;
  runTurn(request: CronTurnRequest): Promise<CronTurnResult>;
  /**
   * Runs a command line as the exec tool does: its checks, its isolation (`tools.exec.isolation`: inside bubblewrap
   * when it works here), its output filter; everything the command starts ends with it. `timeoutMs` undefined means
   * no limit; `signal` ends it early.
   */
  runCommand(command: string, timeoutMs: number | undefined, signal: AbortSignal): Promise<ToolResult>;
}

type Outcome = Omit<CronRun, 'at'>;

// `last_run.detail` says why a run failed; the full output went to the chat.
const DETAIL_CHARS = 500;

/**
 * A run whose text went nowhere failed; one handed to the cluster member running its channel is done (that member's
 * queue delivers it), and `last_run.detail` says it was handed over rather than sent.
 */
function delivered(outcome: SendOutcome): Outcome {
  switch (outcome.kind) {
    case 'sent':
      return { outcome: 'ok' };
    case 'relayed':
      return { outcome: 'ok', detail: `handed to ${holderOf(outcome.to)}` };
    case 'not_delivered':
      return { outcome: 'failed', detail: outcome.reason };
  }
}

/** `tools.cron.exec_timeout_minutes`: 0 means no limit. */
export function commandTimeoutMs(config: Config): number | undefined {
  const minutes = config.tools.cron.exec_timeout_minutes;
  return minutes === 0 ? undefined : minutes * 60_000;
}

async function runCommandJob(
  job: Extract<CronJob['job'], { kind: 'command' }>,
  config: Config,
  effects: CronEffects,
  signal: AbortSignal,
): Promise<Outcome> {
  if (!config.tools.exec.enabled)
    return { outcome: 'skipped', detail: 'command jobs do not run while tools.exec.enabled is false' };
  const result = await effects.runCommand(job.command, commandTimeoutMs(config), signal);
  if (!result.ok) {
    if (job.channel && job.chat)
      await effects.send(
        { channel: job.channel, chat: job.chat },
        `Scheduled command "${job.command}" failed:\n${result.content}`,
      );
    return { outcome: 'failed', detail: result.content.slice(0, DETAIL_CHARS) };
  }
  if (!job.channel || !job.chat) return { outcome: 'ok' };
  return delivered(
    await effects.send(
      { channel: job.channel, chat: job.chat },
      `Scheduled command "${job.command}" ran:\n${result.content}`,
    ),
  );
}

async function runTurnJob(
  cron: CronJob,
  task: Extract<CronJob['job'], { kind: 'agent_turn' }>,
  run: string,
  effects: CronEffects,
): Promise<Outcome> {
  const { channel, chat, message } = task;
  const remote = isRemoteChannel(cron.created_by.channel);
  const reply = await effects.runTurn({
    job: cron.id,
    run,
    channel,
    chat,
    message,
    remote,
    ...(task.agent ? { agent: task.agent } : {}),
  });
  if (!reply.ok) return { outcome: 'failed', detail: reply.reason };
  if (reply.text.trim() === '') return { outcome: 'ok' };
  return delivered(await effects.send({ channel, chat }, reply.text));
}

/**
 * Runs one job once; `signal` ends a command early. Every failure becomes a `failed` outcome with its reason: a job
 * never throws.
 */
export async function runCronJob(
  job: CronJob,
  run: string,
  config: Config,
  effects: CronEffects,
  signal: AbortSignal,
): Promise<Outcome> {
  try {
    switch (job.job.kind) {
      case 'deliver':
        return delivered(await effects.send({ channel: job.job.channel, chat: job.job.chat }, job.job.text));
      case 'agent_turn':
        return await runTurnJob(job, job.job, run, effects);
      case 'command':
        return await runCommandJob(job.job, config, effects, signal);
    }
  } catch (error) {
    return { outcome: 'failed', detail: error instanceof Error ? error.message : String(error) };
  }
}
