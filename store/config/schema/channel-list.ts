import * as z from 'zod/mini';
import { Secret } from '../secret.js';
import { bool, int, proxyUrl, secret, text, textList } from './fields.js';
import { optional, withDefault } from './shared.js';

/** The web-UI channel served by the launcher; legacy streaming env variables never touch it. */
export const WEB_UI_CHANNEL_TYPE = 'pico';

/** Channel-specific settings named like credentials are secrets too, whatever the channel calls them. */
const SECRET_NAME = /(token|secret|password|passphrase|api_key|aes_key|encrypt_key)$/i;

function wrapSecrets(settings: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(settings).map(([key, value]) => [
      key,
      typeof value === 'string' && SECRET_NAME.test(key) ? new Secret(value) : value,
    ]),
  );
}

export const streamingSchema = z.object({
  enabled: withDefault(bool(), false),
  throttle_seconds: withDefault(int(0), 0),
  min_growth_chars: withDefault(int(1), 1),
});

const channelSettingsObject = z.looseObject({
  token: optional(secret()).check(z.describe('Bot token; shown masked, type a new one to replace')),
  allow_from: withDefault(
    textList().check(z.describe('Sender ids or @names allowed to write; empty, strangers get a pairing code')),
    [],
  ),
  mention_only: withDefault(bool().check(z.describe('In groups, answer only when the bot is mentioned')), false),
  prefixes: withDefault(textList(), []),
  base_url: optional(text()).check(z.describe("API root URL, e.g. an emulator; empty, the vendor's")),
  /** A proxy URL (http, https or socks5) for the channel's connections; absent, the environment's `HTTP(S)_PROXY`. */
  proxy: optional(proxyUrl()).check(z.describe('Proxy URL (http, https or socks5) for this channel')),
  placeholder: optional(text()),
  typing: optional(bool()),
  reasoning_channel_id: optional(text()).check(
    z.describe("Chat that gets the model's reasoning (direct:<id>, group:<id> or the platform's id); empty, none"),
  ),
  /** Web-UI channel only: its signed-in user is the owner at this machine, local like the CLI (default true). */
  trusted: optional(bool()),
  streaming: z.prefault(streamingSchema, {}),
});

type ChannelSettings = z.output<typeof channelSettingsObject>;

export const channelSettingsSchema = z.pipe(
  channelSettingsObject,
  z.transform((settings: ChannelSettings) => wrapSecrets(settings) as ChannelSettings),
);

export const channelEntrySchema = z.object({
  enabled: withDefault(bool().check(z.describe('Off, the gateway does not start this channel')), false),
  /** Channel kind; the entry's name when omitted. */
  type: optional(text()).check(z.describe('Channel kind (telegram, discord, slack, …); the entry name when empty')),
  settings: z.prefault(channelSettingsSchema, {}),
});

export const channelListSchema = withDefault(z.record(z.string(), channelEntrySchema), {});
