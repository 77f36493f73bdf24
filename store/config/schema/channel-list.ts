import { z } from 'zod';
import { Secret } from '../secret.js';
import { bool, int, secret, text, textList } from './fields.js';

/** The web-UI channel served by the launcher; legacy streaming env variables never touch it. */
export const WEB_UI_CHANNEL_TYPE = 'pico';

/** Channel-specific settings named like credentials are secrets too, whatever the channel calls them. */
const SECRET_NAME = /(token|secret|password|api_key|aes_key|encrypt_key)$/i;

function wrapSecrets(settings: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(settings).map(([key, value]) => [key, typeof value === 'string' && SECRET_NAME.test(key) ? new Secret(value) : value]),
  );
}

export const streamingSchema = z.object({
  enabled: bool().default(false),
  throttle_seconds: int(0).default(0),
  min_growth_chars: int(1).default(1),
});

export const channelSettingsSchema = z
  .looseObject({
    token: secret().optional(),
    allow_from: textList().default([]),
    mention_only: bool().default(false),
    prefixes: textList().default([]),
    base_url: text().optional(),
    placeholder: text().optional(),
    typing: bool().optional(),
    streaming: streamingSchema.prefault({}),
  })
  .transform((settings) => wrapSecrets(settings) as typeof settings);

export const channelEntrySchema = z.object({
  enabled: bool().default(false),
  /** Channel kind; the entry's name when omitted. */
  type: text().optional(),
  settings: channelSettingsSchema.prefault({}),
});

export const channelListSchema = z.record(z.string(), channelEntrySchema).default({});
