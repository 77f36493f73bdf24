import { z } from 'zod';
import type { Channel } from '../../adapters/channels/channel.js';
import { ChannelError } from '../../adapters/channels/channel.js';
import { TelegramChannel } from '../../adapters/channels/telegram.js';
import { isSecret, type ChannelEntry } from '../../store/config/index.js';

/** Gateway-side settings every channel accepts besides the spec's. */
const supervisionSchema = z.object({
  restart_backoff_ms: z.number().int().min(10).max(600_000).default(1000),
  poll_timeout_seconds: z.number().int().min(0).max(50).default(30),
});

export function supervisionOf(entry: ChannelEntry): z.infer<typeof supervisionSchema> {
  const parsed = supervisionSchema.safeParse(entry.settings);
  return parsed.success ? parsed.data : supervisionSchema.parse({});
}

function tokenOf(name: string, entry: ChannelEntry): string {
  const token = entry.settings.token;
  const value = isSecret(token) ? token.reveal() : '';
  if (value === '') throw new ChannelError('bad_settings', `channel_list.${name}.settings.token is missing (set it in config.json or .security.yml)`);
  return value;
}

export const SUPPORTED_KINDS = ['telegram'] as const;

/** A fresh channel instance for one `channel_list` entry; unknown kinds fail with the supported list. */
export function createChannel(name: string, entry: ChannelEntry, multiplier: number): Channel {
  const kind = entry.type ?? name;
  const supervision = supervisionOf(entry);
  switch (kind) {
    case 'telegram':
      return new TelegramChannel({
        token: tokenOf(name, entry),
        ...(entry.settings.base_url ? { baseUrl: entry.settings.base_url } : {}),
        pollTimeoutSeconds: supervision.poll_timeout_seconds,
        stallGraceMs: 15_000 * multiplier,
      });
    default:
      throw new ChannelError('bad_settings', `channel_list.${name}.type "${kind}" is not supported by this gateway (supported: ${SUPPORTED_KINDS.join(', ')})`);
  }
}
