import { z } from 'zod/mini';
import { agentsSchema } from './agents.js';
import { channelListSchema } from './channel-list.js';
import { clusterSchema } from './cluster.js';
import { evolutionSchema } from './evolution.js';
import { gatewaySchema } from './gateway.js';
import { heartbeatSchema } from './heartbeat.js';
import { hooksSchema } from './hooks.js';
import { modelListSchema } from './model-list.js';
import { pluginsSchema } from './plugins.js';
import { powerSchema } from './power.js';
import { sessionSchema } from './session.js';
import { withDefault } from './shared.js';
import { toolsSchema } from './tools/index.js';

export const CONFIG_VERSION = 2;

const blocks = z.object({
  version: withDefault(z.literal(CONFIG_VERSION), CONFIG_VERSION),
  gateway: z.prefault(gatewaySchema, {}),
  cluster: z.prefault(clusterSchema, {}),
  evolution: z.prefault(evolutionSchema, {}),
  agents: z.prefault(agentsSchema, {}),
  session: z.prefault(sessionSchema, {}),
  heartbeat: z.prefault(heartbeatSchema, {}),
  power: z.prefault(powerSchema, {}),
  model_list: modelListSchema,
  channel_list: channelListSchema,
  tools: z.prefault(toolsSchema, {}),
  hooks: z.prefault(hooksSchema, {}),
  plugins: z.prefault(pluginsSchema, {}),
});

type Blocks = z.output<typeof blocks>;

/** Names one block refers to in another must exist, or routing silently goes nowhere. */
function checkReferences(config: Blocks, ctx: z.core.$RefinementCtx<Blocks>): void {
  const agentIds = config.agents.list.map((a) => a.id);
  const defaults = config.agents.list.filter((a) => a.default === true);
  if (defaults.length > 1) {
    ctx.addIssue({
      code: 'custom',
      path: ['agents', 'list'],
      message: `${defaults.length} agents are marked default (allowed: at most one; now ${defaults.map((a) => a.id).join(', ')})`,
    });
  }
  config.agents.dispatch.rules.forEach((rule, i) => {
    if (agentIds.length > 0 && !agentIds.includes(rule.agent)) {
      ctx.addIssue({
        code: 'custom',
        path: ['agents', 'dispatch', 'rules', i, 'agent'],
        message: `${JSON.stringify(rule.agent)} is not an agent in agents.list (allowed: ${agentIds.join(', ')})`,
      });
    }
  });
  const modelNames = [...new Set(config.model_list.map((m) => m.model_name))];
  const checkModel = (model: string | undefined, path: PropertyKey[]): void => {
    if (model === undefined || modelNames.length === 0 || modelNames.includes(model)) return;
    ctx.addIssue({ code: 'custom', path, message: `${JSON.stringify(model)} is not a model_name in model_list (allowed: ${modelNames.join(', ')})` });
  };
  for (const field of ['model', 'transcription_model', 'image_model'] as const) checkModel(config.agents.defaults[field], ['agents', 'defaults', field]);
  config.agents.list.forEach((agent, i) => {
    if (agentIds.indexOf(agent.id) !== i) {
      ctx.addIssue({ code: 'custom', path: ['agents', 'list', i, 'id'], message: `${JSON.stringify(agent.id)} is the id of an earlier agent (allowed: a unique id)` });
    }
    checkAgentModel(agent.model, ['agents', 'list', i, 'model'], checkModel);
    checkAgentModel(agent.subagents?.model, ['agents', 'list', i, 'subagents', 'model'], checkModel);
    agent.subagents?.allow_agents?.forEach((allowed, j) => {
      if (allowed === '*' || agentIds.includes(allowed)) return;
      ctx.addIssue({
        code: 'custom',
        path: ['agents', 'list', i, 'subagents', 'allow_agents', j],
        message: `${JSON.stringify(allowed)} is not an agent in agents.list (allowed: *, ${[...new Set(agentIds)].join(', ')})`,
      });
    });
  });
}

type AgentModel = Blocks['agents']['list'][number]['model'];

/** Every model an agent names (a `model_name`, or its primary and fallbacks) must be in model_list. */
function checkAgentModel(model: AgentModel, path: PropertyKey[], check: (model: string | undefined, path: PropertyKey[]) => void): void {
  if (model === undefined) return;
  if (typeof model === 'string') return check(model, path);
  check(model.primary, [...path, 'primary']);
  model.fallbacks.forEach((name, i) => check(name, [...path, 'fallbacks', i]));
}

type TypedChannel = Blocks['channel_list'][string] & { type: string };

/** A channel's kind is its entry name unless written. */
function withChannelTypes(config: Blocks): Omit<Blocks, 'channel_list'> & { channel_list: Record<string, TypedChannel> } {
  const channel_list = Object.fromEntries(
    Object.entries(config.channel_list).map(([name, entry]): [string, TypedChannel] => [name, { ...entry, type: entry.type ?? name }]),
  );
  return { ...config, channel_list };
}

/** Config version 2: every block with its defaults; the one source of the `Config` type. */
export const configSchema = z.pipe(blocks.check(z.superRefine(checkReferences)), z.transform(withChannelTypes));

export type Config = z.output<typeof configSchema>;
export type ConfigInput = z.input<typeof configSchema>;
export type ModelEntry = Config['model_list'][number];
export type ChannelEntry = Config['channel_list'][string];
export type McpServer = Config['tools']['mcp']['servers'][string];
export type ProcessHookEntry = Config['hooks']['processes'][string];
export type PluginEntry = Config['plugins']['entries'][string];
