import * as z from 'zod/mini';
import { agentsSchema } from './agents.js';
import { channelListSchema } from './channel-list.js';
import { clusterSchema } from './cluster.js';
import { evolutionSchema } from './evolution.js';
import { eventsSchema } from './events.js';
import { gatewaySchema } from './gateway.js';
import { heartbeatSchema } from './heartbeat.js';
import { hooksSchema } from './hooks.js';
import { logSchema } from './log.js';
import { modelListSchema } from './model-list.js';
import { pluginsSchema } from './plugins.js';
import { powerSchema } from './power.js';
import { sessionSchema } from './session.js';
import { withDefault } from './shared.js';
import { toolsSchema } from './tools/index.js';
import { voiceSchema } from './voice.js';

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
  log: z.prefault(logSchema, {}),
  events: z.prefault(eventsSchema, {}),
  voice: z.prefault(voiceSchema, {}),
});

type Blocks = z.output<typeof blocks>;

type TypedChannel = Blocks['channel_list'][string] & { type: string };

/** A channel's kind is its entry name unless written. */
function withChannelTypes(
  config: Blocks,
): Omit<Blocks, 'channel_list'> & { channel_list: Record<string, TypedChannel> } {
  const channel_list = Object.fromEntries(
    Object.entries(config.channel_list).map(([name, entry]): [string, TypedChannel] => [
      name,
      { ...entry, type: entry.type ?? name },
    ]),
  );
  return { ...config, channel_list };
}

/**
 * Config version 2: every block with its defaults; the one source of the `Config` type. Checks across blocks
 * (references, addresses, channel requirements) are in `cross-checks.ts`: a refinement here would run only once
 * every type is right, so a user would meet the problems in rounds.
 */
export const configSchema = z.pipe(blocks, z.transform(withChannelTypes));

export type Config = z.output<typeof configSchema>;
export type ConfigInput = z.input<typeof configSchema>;
export type ModelEntry = Config['model_list'][number];
export type ChannelEntry = Config['channel_list'][string];
export type McpServer = Config['tools']['mcp']['servers'][string];
export type ProcessHookEntry = Config['hooks']['processes'][string];
export type PluginEntry = Config['plugins']['entries'][string];
