import * as z from 'zod';
import type { Channel } from '../../adapters/channels/channel.js';
import { ChannelError } from '../../adapters/channels/channel.js';
import { isSecret, type ChannelEntry } from '../../store/config/index.js';
import type { Scheduler } from './scheduler.js';

/** Gateway-side settings every channel accepts besides the spec's. */
const supervisionSchema = z.object({
  restart_backoff_ms: z.number().int().min(10).max(600_000).default(1000),
  poll_timeout_seconds: z.number().int().min(0).max(50).default(30),
});

export function supervisionOf(entry: ChannelEntry): z.infer<typeof supervisionSchema> {
  const { reconnect_interval: peer, restart_backoff_ms: own } = entry.settings as Record<string, unknown>;
  // The peer runtime's `reconnect_interval` (OneBot, seconds) is the first wait before a restart.
  const fromPeer = typeof peer === 'number' && own === undefined ? { restart_backoff_ms: peer * 1000 } : {};
  const parsed = supervisionSchema.safeParse({ ...entry.settings, ...fromPeer });
  return parsed.success ? parsed.data : supervisionSchema.parse({});
}

function secretSetting(name: string, entry: ChannelEntry, field: string): string {
  const value: unknown = entry.settings[field as keyof ChannelEntry['settings']];
  const revealed = isSecret(value) ? value.reveal() : '';
  if (revealed === '') throw new ChannelError('bad_settings', `channel_list.${name}.settings.${field} is missing (set it in config.json or .security.yml)`);
  return revealed;
}

/** discord.js and Slack Bolt make their connections with HTTP and WebSocket clients of their own, which take no proxy from us. */
function refuseProxy(name: string, entry: ChannelEntry, library: string): void {
  if (!entry.settings.proxy) return;
  throw new ChannelError('bad_settings', `channel_list.${name}.settings.proxy is not supported for this channel: ${library} makes its own connections (allowed: telegram channels)`);
}

export const SUPPORTED_KINDS = ['telegram', 'discord', 'slack', 'onebot', 'qq', 'dingtalk', 'feishu', 'wecom'] as const;

/**
 * Channel maintenance (the check of a Telegram long poll for a stall) waits 10 s × `power.poll_interval_multiplier`.
 * Its timer is a plain one unless one is given: on a test's hand-moved gateway clock a jump of minutes would find
 * every poll in flight stalled.
 */
export const CHANNEL_MAINTENANCE_MS = 10_000;

/**
 * A fresh channel instance for one `channel_list` entry; unknown kinds fail with the supported list.
 * Each platform's library loads only when a channel of its kind is configured, to keep start-up fast.
 */
export async function createChannel(name: string, entry: ChannelEntry, multiplier: number, timer?: Scheduler): Promise<Channel> {
  const kind = entry.type ?? name;
  const supervision = supervisionOf(entry);
  const tokenOf = (n: string, e: ChannelEntry): string => secretSetting(n, e, 'token');
  switch (kind) {
    case 'telegram': {
      const { TelegramChannel } = await import('../../adapters/channels/telegram.js');
      return new TelegramChannel({
        token: tokenOf(name, entry),
        ...(entry.settings.base_url ? { baseUrl: entry.settings.base_url } : {}),
        pollTimeoutSeconds: supervision.poll_timeout_seconds,
        stallGraceMs: CHANNEL_MAINTENANCE_MS * multiplier,
        ...(timer ? { timer } : {}),
        ...(entry.settings.proxy ? { proxy: entry.settings.proxy } : {}),
      });
    }
    case 'discord': {
      refuseProxy(name, entry, 'discord.js');
      const { DiscordChannel } = await import('../../adapters/channels/discord.js');
      return new DiscordChannel(tokenOf(name, entry));
    }
    case 'slack': {
      refuseProxy(name, entry, 'Slack Bolt');
      const { SlackChannel } = await import('../../adapters/channels/slack.js');
      return new SlackChannel({ token: tokenOf(name, entry), appToken: secretSetting(name, entry, 'app_token') });
    }
    case 'wecom': return (await import('../../adapters/channels/wecom/create.js')).createWeComChannel(name, entry);
    case 'feishu': return (await import('../../adapters/channels/feishu/create.js')).createFeishuChannel(name, entry);
    case 'dingtalk': return (await import('../../adapters/channels/dingtalk/create.js')).createDingTalkChannel(name, entry);
    case 'qq': return (await import('../../adapters/channels/qq/create.js')).createQqChannel(name, entry);
    case 'onebot': return (await import('../../adapters/channels/onebot/create.js')).createOneBotChannel(name, entry);
    default:
      throw new ChannelError('bad_settings', `channel_list.${name}.type "${kind}" is not supported by this gateway (supported: ${SUPPORTED_KINDS.join(', ')})`);
  }
}
