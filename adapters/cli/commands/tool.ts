import { homedir } from 'node:os';
import { join } from 'node:path';
import { buildTools } from '../../tools/build-tools.js';
import { defaultSandbox } from '../../tools/options.js';
import type { ToolRegistry } from '../../tools/registry.js';
import type { ToolContext } from '../../tools/tool.js';
import { agentHome } from '../../../store/paths.js';
import { resolveWorkspace } from '../../../store/workspace-path.js';
import type { CommandContext } from '../command.js';
import { print } from '../command.js';
import { UsageError } from '../errors.js';

/** Channels a person at this machine uses; every other channel is reached over a network. */
const LOCAL_CHANNELS = new Set(['cli', 'system']);

/** Until the config is wired in, the policy is the defaults around the `AGENT_HOME` workspace. */
function registryFor(env: NodeJS.ProcessEnv): { registry: ToolRegistry; workspace: string } {
  const userHome = env.HOME?.trim() || homedir();
  const workspace = resolveWorkspace(env);
  const codingToolHome = env.CODEX_HOME?.trim() || join(userHome, '.codex');
  return { registry: buildTools({ sandbox: defaultSandbox(workspace, agentHome(env), userHome, codingToolHome) }), workspace };
}

function text(values: CommandContext['values'], name: string, fallback: string): string {
  const value = values[name];
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : fallback;
}

function parseArgs(raw: string | undefined): unknown {
  if (raw === undefined) return {};
  try {
    return JSON.parse(raw);
  } catch (error) {
    throw new UsageError(`ARGS_JSON is not valid JSON (${(error as Error).message})`, 'Pass the arguments as one JSON object, e.g. \'{"path":"notes.md"}\'.');
  }
}

function list(registry: ToolRegistry, { stdout, json }: CommandContext): number {
  if (json) print(stdout, JSON.stringify({ ok: true, tools: registry.specs() }));
  else for (const tool of registry.list()) print(stdout, `${tool.name.padEnd(14)} ${tool.description}`);
  return 0;
}

async function call(registry: ToolRegistry, workspace: string, context: CommandContext): Promise<number> {
  const [, name, rawArgs, ...extra] = context.positionals;
  if (!name) throw new UsageError('tool call needs a tool NAME', 'Run `tern tool list` to see the tools.');
  if (extra.length > 0) throw new UsageError(`unexpected arguments after ARGS_JSON: ${extra.join(' ')}`, 'Quote the JSON as one argument.');
  const channel = text(context.values, 'channel', 'cli');
  const toolContext: ToolContext = {
    agent: text(context.values, 'agent', 'main'),
    session: 'sk_v1_cli-tool-call',
    sessionKey: `v=1|agent=${text(context.values, 'agent', 'main')}|channel=${channel}|account=default`,
    channel,
    chat: 'tool-call',
    remote: !LOCAL_CHANNELS.has(channel),
    workspace,
    signal: context.signal,
  };
  const result = await registry.execute(name, parseArgs(rawArgs), toolContext);
  if (context.json) print(context.stdout, JSON.stringify({ ok: result.ok, content: result.content }));
  else context.stdout.write(result.content.endsWith('\n') ? result.content : `${result.content}\n`);
  return result.ok ? 0 : 1;
}

export async function run(context: CommandContext): Promise<number> {
  const action = context.positionals[0];
  if (action !== 'list' && action !== 'call') {
    throw new UsageError(`tool takes "list" or "call", got ${action === undefined ? 'nothing' : `"${action}"`}`, 'Run `tern tool --help`.');
  }
  const { registry, workspace } = registryFor(context.env);
  return action === 'list' ? list(registry, context) : call(registry, workspace, context);
}
