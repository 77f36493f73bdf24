import * as z from 'zod/mini';
import { bool, secret, text } from './fields.js';
import { optional } from './shared.js';
import { ircSettings } from './channels/irc.js';
import { matrixSettings } from './channels/matrix.js';
import { signalSettings } from './channels/signal.js';
import { mattermostSettings } from './channels/mattermost.js';
import { emailSettings } from './channels/email.js';
import { feishuSettings } from './channels/feishu.js';
import { dingtalkSettings } from './channels/dingtalk.js';
import { wecomSettings } from './channels/wecom.js';
import { qqSettings } from './channels/qq.js';
import { onebotSettings } from './channels/onebot.js';
import { picoClientSettings } from './channels/pico-client.js';
import { picoSettings } from './channels/pico.js';

/**
 * The settings of each channel kind beyond those every entry has (`channel-list.ts`), each field described: the
 * dashboard builds its channel forms from these, and `docs/channels/<type>.md` lists the same fields. Names are the
 * peer runtime's where it has the field, so its configs carry over. A new kind adds its entry here.
 */
const described = <T extends z.core.SomeType>(schema: T, description: string) =>
  optional(schema).check(z.describe(description));

export const channelKindSettings = {
  telegram: z.looseObject({
    token: described(secret(), 'Bot token from @BotFather (123456:ABC…)'),
    base_url: described(
      text(),
      'Bot API root, e.g. a local Bot API server or an emulator (default https://api.telegram.org)',
    ),
    proxy: described(text(), 'Proxy for every Bot API call: http://, https:// or socks5:// URL'),
    poll_timeout_seconds: described(z.number(), 'Seconds one long poll waits for updates (0 to 50, default 30)'),
  }),
  discord: z.looseObject({
    token: described(secret(), 'Bot token from the Discord developer portal (Bot → Reset Token)'),
    base_url: described(text(), 'REST API root ending in /api, e.g. an emulator (default https://discord.com/api)'),
  }),
  slack: z.looseObject({
    token: described(secret(), 'Bot token (xoxb-…); the peer runtime calls it bot_token'),
    app_token: described(secret(), 'App-level token (xapp-…) with connections:write, for Socket Mode'),
    base_url: described(text(), 'Web API root ending in /api/, e.g. an emulator (default https://slack.com/api/)'),
  }),
  line: z.looseObject({
    channel_secret: described(secret(), 'Channel secret (Basic settings): checks the signature of every webhook'),
    channel_access_token: described(secret(), 'Long-lived channel access token (Messaging API tab)'),
    webhook_path: described(text(), 'Path the gateway takes LINE webhooks on (default /webhooks/line/<name>)'),
    base_url: described(text(), 'Messaging API root (default https://api.line.me), e.g. an emulator'),
    data_base_url: described(text(), 'Content API root for pictures and files (default https://api-data.line.me)'),
  }),
  whatsapp: z.looseObject({
    bridge_url: described(
      text(),
      "WebSocket of an external WhatsApp bridge (the peer runtime's protocol), e.g. ws://localhost:3001",
    ),
    use_native: described(bool(), 'Link this machine as a WhatsApp device through Baileys (scan a QR code once)'),
    session_store_path: described(
      text(),
      "Folder of the linked device's keys, kept owner-only (default <AGENT_HOME>/whatsapp/<name>)",
    ),
    phone_number_id: described(
      text(),
      'Cloud API: the phone number id (WhatsApp → API Setup); setting it selects the Cloud API',
    ),
    access_token: described(secret(), "Cloud API: a system user's permanent access token"),
    app_secret: described(
      secret(),
      "Cloud API: the Meta app's secret, which signs every webhook (X-Hub-Signature-256)",
    ),
    verify_token: described(secret(), "Cloud API: any string; enter the same in the app's webhook settings"),
    api_version: described(text(), 'Cloud API: Graph API version (default v21.0)'),
    base_url: described(text(), 'Cloud API: Graph API root (default https://graph.facebook.com), e.g. an emulator'),
  }),
  matrix: matrixSettings,
  irc: ircSettings,
  signal: signalSettings,
  mattermost: mattermostSettings,
  email: emailSettings,
  feishu: feishuSettings,
  dingtalk: dingtalkSettings,
  wecom: wecomSettings,
  qq: qqSettings,
  onebot: onebotSettings,
  pico_client: picoClientSettings,
  pico: picoSettings,
};

export type ChannelKind = keyof typeof channelKindSettings;
