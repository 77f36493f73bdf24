import * as z from 'zod';
import type { Channel } from '../../adapters/channels/channel.js';
import { ChannelError } from '../../adapters/channels/channel.js';
import { isSecret, type ChannelEntry } from '../../store/config/index.js';
import type { Scheduler } from './scheduler.js';

/** Gateway-side settings every channel accepts besides the spec's. */
const supervisionSchema = z.object({
  restart_backoff_ms: z.number().int().min(10).max(600_000).default(1000),
  poll_timeout_seconds: z.number().int().min(0).max(50).default(30),
  /** Tries of a reply part the platform did not take (rate limited, unreachable) before the chat is told. */
  send_attempts: z.number().int().min(1).max(20).default(6),
  /** The pause before the second try, doubling per try up to 30 s; at least the platform's `retry_after`. */
  send_backoff_ms: z.number().int().min(10).max(60_000).default(500),
});

export function supervisionOf(entry: ChannelEntry): z.infer<typeof supervisionSchema> {
  const parsed = supervisionSchema.safeParse(entry.settings);
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

export const SUPPORTED_KINDS = ['telegram', 'discord', 'slack'] as const;

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
    default:
      throw new ChannelError('bad_settings', `channel_list.${name}.type "${kind}" is not supported by this gateway (supported: ${SUPPORTED_KINDS.join(', ')})`);
  }
}
