import { DEFAULT_EXEC, DEFAULT_FILTER } from '../../adapters/tools/options.js';
import type { LoadedConfig } from '../../store/config/index.js';
import { sessionKeyOf } from '../wiring/session-key.js';
import type { Runtime } from '../runtime.js';
import { toolsOptions } from '../wiring/tools.js';
import type { CronEffects } from './run-job.js';

// `exec_timeout_minutes: 0` means no limit; the longest a Node timer can wait (about 24 days) stands for it.
const NO_LIMIT_MS = 2_147_483_647;

/**
 * An `agent_turn` job runs in a session of its own (channel `cron`, chat `cron:<job id>`), so scheduled
 * turns keep their history apart from the chat they report to; the message names that chat.
 */
export function cronTurnRunner(engine: () => Promise<Runtime>): CronEffects['runTurn'] {
  return async (request) => {
    const runtime = await engine();
    const agent = request.agent ?? runtime.defaultAgent();
    const reply = await runtime.ask({
      agent,
      session_key: sessionKeyOf({ agent, channel: 'cron', dimensions: [['chat', `cron:${request.job}`]] }),
      channel: request.channel,
      chat: request.chat,
      sender: 'cron',
      message_id: request.run,
      text: request.message,
      remote: request.remote,
    });
    if (reply.kind === 'none') return { ok: true, text: '' };
    if (reply.kind === 'turn' && reply.outcome !== 'completed')
      return { ok: false, reason: `the turn ended ${reply.outcome}: ${reply.text}` };
    return { ok: true, text: reply.text };
  };
}

/**
 * Command jobs run through the exec tool under the current config (sandbox, deny patterns, output filter),
 * with `tools.cron.exec_timeout_minutes` as the limit. They run on this machine, so the exec tool's remote
 * rule does not apply here: who may schedule them from a remote chat was decided when they were added.
 */
export function cronCommandRunner(
  runtime: { loaded: LoadedConfig },
  env: NodeJS.ProcessEnv,
  logError: (line: string) => void,
): CronEffects['runCommand'] {
  return async (command, timeoutMs, signal) => {
    // The tools load with the first command job, not with the gateway.
    const [{ execTool }, { ToolRegistry }, { Sandbox }] = await Promise.all([
      import('../../adapters/tools/exec/exec-tool.js'),
      import('../../adapters/tools/registry.js'),
      import('../../adapters/tools/sandbox/sandbox.js'),
    ]);
    // A stop during the imports above comes before the exec tool listens for it.
    signal.throwIfAborted();
    const { config, workspace, home } = runtime.loaded;
    const options = toolsOptions(config, workspace, home, env, (entry) => logError(JSON.stringify(entry)));
    const registry = new ToolRegistry({ ...DEFAULT_FILTER, ...options.filter }, workspace);
    registry.register(
      execTool(new Sandbox(options.sandbox), { ...DEFAULT_EXEC, ...options.exec, timeoutMs: timeoutMs ?? NO_LIMIT_MS }),
    );
    const context = {
      agent: 'cron',
      session: 'cron',
      sessionKey: 'cron',
      channel: 'system',
      chat: 'cron',
      remote: false,
      workspace,
      signal,
    };
    return registry.execute('exec', { command }, context);
  };
}
