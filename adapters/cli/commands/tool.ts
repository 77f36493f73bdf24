import { sessionKeyOf } from '../../../actors/agent.js';
import { defaultAgent } from '../../../actors/dispatch.js';
import { Runtime } from '../../../actors/runtime.js';
import { RuntimeCore } from '../../../actors/runtime-core.js';
import type { Toolbox } from '../../../actors/turn-actors.js';
import { sessionIdOf } from '../../../bus/index.js';
import type { SendFunction } from '../../tools/options.js';
import type { ToolContext } from '../../tools/tool.js';
import { WEB_UI_CHANNEL_TYPE, type LoadedConfig } from '../../../store/config/index.js';
import { WorkspaceError } from '../../../store/workspace/errors.js';
import type { CommandContext } from '../command.js';
import { print } from '../command.js';
import { CliError, subcommandError, UsageError } from '../errors.js';
import { loadConfigForCli } from '../load-config.js';

/** Channels of this machine: the terminal and the runtime's own (heartbeat, cron). */
const LOCAL_CHANNELS = new Set(['cli', 'system']);

/** The chat a `tern tool` call pretends to come from. */
const CHAT = 'direct:tool-call';

function text(values: CommandContext['values'], name: string): string | undefined {
  const value = values[name];
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

function parseArgs(raw: string | undefined): unknown {
  if (raw === undefined) return {};
  try {
    return JSON.parse(raw);
  } catch (error) {
    throw new UsageError(
      `ARGS_JSON is not valid JSON (${(error as Error).message})`,
      'Pass the arguments as one JSON object, e.g. \'{"path":"notes.md"}\'.',
    );
  }
}

/** The agent a turn would go to: the one named (which must exist), else the default. */
function agentOf(loaded: LoadedConfig, named: string | undefined): string {
  const known = loaded.config.agents.list.map((a) => a.id);
  if (named && known.length > 0 && !known.includes(named)) {
    throw new CliError(
      'unknown_agent',
      `no agent "${named}"`,
      `agents.list has: ${known.join(', ')}`,
      'Pick one of those with --agent.',
    );
  }
  return named ?? defaultAgent(loaded.config);
}

/**
 * Whether a turn from this channel is remote, as the gateway decides it: the terminal and internal channels are
 * local, the dashboard's chat is local unless `settings.trusted` is false, every other channel is remote.
 */
function isRemote(loaded: LoadedConfig, channel: string, stderr: CommandContext['stderr']): boolean {
  if (LOCAL_CHANNELS.has(channel)) return false;
  const entry = loaded.config.channel_list[channel];
  if (!entry) {
    print(
      stderr,
      `tern: note: no channel "${channel}" in channel_list; the call is treated as coming from a remote channel`,
    );
    return true;
  }
  return !(entry.type === WEB_UI_CHANNEL_TYPE && entry.settings.trusted !== false);
}

/** Why nothing a `tern tool` call sends reaches a chat. */
const NOT_DELIVERED = 'tern tool connects to no channel; the gateway delivers';

/**
 * The gateway gives its turns a way to reach the chat (`message`, `send_file`); `tern agent` on the terminal has
 * none. This process connects to no channel: what a tool would send is shown on stderr, and the tool is told it was
 * not delivered, so its result (what the model would read) does not claim a send.
 */
function sendFor(channel: string, stderr: CommandContext['stderr']): SendFunction | undefined {
  if (channel === 'cli') return undefined;
  return async (target, body, media) => {
    const attached =
      media.length > 0
        ? ` (+${media.length} file${media.length === 1 ? '' : 's'}: ${media.map((m) => m.path).join(', ')})`
        : '';
    print(stderr, `tern: not delivered (${NOT_DELIVERED}): ${target.channel} ${target.chat}: ${body}${attached}`);
    return { kind: 'not_delivered', reason: NOT_DELIVERED };
  };
}

/** MCP tools appear once their servers have connected (or failed): wait for each enabled one. */
async function mcpSettled(runtime: Runtime): Promise<void> {
  const manager = runtime.mcp;
  if (!manager) return;
  await Promise.all(
    manager
      .statuses()
      .filter((s) => s.enabled)
      .map((s) => manager.settled(s.name)),
  );
}

/** The tools the next turn of this session would have, from the runtime a turn runs in. */
function toolboxOf(runtime: Runtime, agent: string, sessionKey: string): Toolbox {
  try {
    return runtime.agent(agent).nextToolbox(sessionKey);
  } catch (error) {
    if (!(error instanceof WorkspaceError)) throw error;
    throw new CliError(
      error.code,
      `cannot read ${error.file}`,
      error.problems.join('; '),
      'Fix its frontmatter (a turn would fail the same way).',
    );
  }
}

function list(box: Toolbox, { stdout, json }: CommandContext): number {
  if (json) {
    print(stdout, JSON.stringify({ ok: true, tools: box.specs() }));
    return 0;
  }
  const descriptions = new Map(box.registry.list().map((t) => [t.name, t.description]));
  for (const name of box.names) print(stdout, `${name.padEnd(14)} ${descriptions.get(name) ?? ''}`);
  return 0;
}

async function call(box: Toolbox, toolContext: ToolContext, context: CommandContext): Promise<number> {
  const [, name, rawArgs, ...extra] = context.positionals;
  if (!name) throw new UsageError('tool call needs a tool NAME', 'Run `tern tool list` to see the tools.');
  if (extra.length > 0)
    throw new UsageError(`unexpected arguments after ARGS_JSON: ${extra.join(' ')}`, 'Quote the JSON as one argument.');
  const args = parseArgs(rawArgs);
  // As in a turn: a tool the turn does not expose (AGENT.md tools, turn profile, a hidden MCP tool) is refused.
  const result = box.names.includes(name)
    ? await box.registry.execute(name, args, toolContext)
    : { ok: false, content: `tool "${name}" is not available in this turn` };
  if (context.json) print(context.stdout, JSON.stringify({ ok: result.ok, content: result.content }));
  else context.stdout.write(result.content.endsWith('\n') ? result.content : `${result.content}\n`);
  return result.ok ? 0 : 1;
}

export async function run(context: CommandContext): Promise<number> {
  const action = context.positionals[0];
  if (action !== 'list' && action !== 'call') throw subcommandError('tool', action, ['list', 'call']);
  const { env, stderr } = context;
  const loaded = loadConfigForCli(env);
  const agent = agentOf(loaded, text(context.values, 'agent'));
  const channel = text(context.values, 'channel') ?? 'cli';
  const remote = isRemote(loaded, channel, stderr);
  const send = sendFor(channel, stderr);
  // In the gateway, its own engine: the tools, MCP connections and session state its turns have. Here, the runtime a
  // turn runs in, on a log of its own.
  const engine = context.gateway ? await context.gateway.engine() : undefined;
  const runtime = engine ?? (await scratchRuntime(loaded, context, send));
  try {
    await runtime.plugins.load();
    await mcpSettled(runtime);
    const sessionKey = sessionKeyOf({ agent, channel, dimensions: [['chat', CHAT]] });
    const box = toolboxOf(runtime, agent, sessionKey);
    if (action === 'list') return list(box, context);
    const toolContext: ToolContext = {
      agent,
      session: sessionIdOf(sessionKey),
      sessionKey,
      channel,
      chat: CHAT,
      remote,
      workspace: loaded.workspace,
      signal: context.signal,
    };
    return await call(box, toolContext, context);
  } finally {
    if (!engine) await runtime.close();
  }
}

async function scratchRuntime(
  loaded: LoadedConfig,
  { env, stderr }: CommandContext,
  send: SendFunction | undefined,
): Promise<Runtime> {
  const core = RuntimeCore.scratch(loaded, 'tool');
  try {
    return Runtime.on(core, { env, logError: (line) => print(stderr, line), ...(send ? { send } : {}) });
  } catch (error) {
    await core.close();
    throw error;
  }
}
