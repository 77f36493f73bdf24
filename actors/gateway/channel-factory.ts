import { homedir } from 'node:os';
import { join } from 'node:path';
import * as z from 'zod';
import { CHANNEL_KINDS } from '../../store/config/cross-checks.js';
import type { Channel } from '../../adapters/channels/channel.js';
import { ChannelError } from '../../adapters/channels/channel.js';
import { isSecret, type ChannelEntry } from '../../store/config/index.js';
import type { Scheduler } from '../scheduler.js';

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
  const { reconnect_interval: peer, restart_backoff_ms: own } = entry.settings as Record<string, unknown>;
  // The peer runtime's `reconnect_interval` (OneBot, seconds) is the first wait before a restart.
  const fromPeer = typeof peer === 'number' && own === undefined ? { restart_backoff_ms: peer * 1000 } : {};
  const parsed = supervisionSchema.safeParse({ ...entry.settings, ...fromPeer });
  return parsed.success ? parsed.data : supervisionSchema.parse({});
}

function secretSetting(name: string, entry: ChannelEntry, field: string): string {
  const value: unknown = entry.settings[field as keyof ChannelEntry['settings']];
  const revealed = isSecret(value) ? value.reveal() : '';
  if (revealed === '')
    throw new ChannelError(
      'bad_settings',
      `channel_list.${name}.settings.${field} is missing (set it in config.json or .security.yml)`,
    );
  return revealed;
}

/**
 * Discord's and Slack's libraries make their connections with HTTP and WebSocket clients of their own, which take no
 * proxy from us.
 */
function refuseProxy(name: string, entry: ChannelEntry, library: string): void {
  if (!entry.settings.proxy) return;
  throw new ChannelError(
    'bad_settings',
    `channel_list.${name}.settings.proxy is not supported for this channel: ` +
      `${library} makes its own connections (allowed: telegram channels)`,
  );
}

/** Every channel kind; tern-launcher builds its own `pico` (the dashboard's chat) instead of this gateway's server. */
export const SUPPORTED_KINDS: readonly string[] = CHANNEL_KINDS;

/** A plain (not secret) text setting of the kinds whose fields the shared schema does not name. */
function textSetting(entry: ChannelEntry, field: string): string | undefined {
  const value: unknown = (entry.settings as Record<string, unknown>)[field];
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

/**
 * WhatsApp in one of three modes, as the entry's fields say: the Cloud API (`phone_number_id`), a linked device through
 * Baileys (`use_native: true`), or the peer runtime's external bridge (`bridge_url`).
 */
async function whatsapp(name: string, entry: ChannelEntry): Promise<Channel> {
  const settings = entry.settings as Record<string, unknown>;
  const phoneNumberId = textSetting(entry, 'phone_number_id');
  if (phoneNumberId) {
    const { WhatsAppCloudChannel } = await import('../../adapters/channels/whatsapp-cloud.js');
    const apiVersion = textSetting(entry, 'api_version');
    return new WhatsAppCloudChannel({
      phoneNumberId,
      accessToken: secretSetting(name, entry, 'access_token'),
      appSecret: secretSetting(name, entry, 'app_secret'),
      verifyToken: secretSetting(name, entry, 'verify_token'),
      ...(entry.settings.base_url ? { apiBase: entry.settings.base_url } : {}),
      ...(apiVersion ? { apiVersion } : {}),
    });
  }
  if (settings.use_native === true) {
    const { WhatsAppNativeChannel } = await import('../../adapters/channels/whatsapp-native.js');
    const home = process.env.AGENT_HOME || join(homedir(), '.agent');
    const sessionDir = textSetting(entry, 'session_store_path') ?? join(home, 'whatsapp', name);
    return new WhatsAppNativeChannel({
      sessionDir,
      showQr: (terminal) =>
        process.stderr.write(`WhatsApp (${name}): scan this code under Linked devices\n${terminal}\n`),
    });
  }
  const bridgeUrl = textSetting(entry, 'bridge_url');
  if (!bridgeUrl) {
    throw new ChannelError(
      'bad_settings',
      `channel_list.${name}.settings needs phone_number_id (Cloud API), ` +
        `use_native: true (linked device) or bridge_url (an external bridge)`,
    );
  }
  const { WhatsAppBridgeChannel } = await import('../../adapters/channels/whatsapp-bridge.js');
  return new WhatsAppBridgeChannel(bridgeUrl);
}

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
export async function createChannel(
  name: string,
  entry: ChannelEntry,
  multiplier: number,
  timer?: Scheduler,
): Promise<Channel> {
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
      refuseProxy(name, entry, '@discordjs/ws and @discordjs/rest');
      const { DiscordChannel } = await import('../../adapters/channels/discord.js');
      return new DiscordChannel({
        token: tokenOf(name, entry),
        ...(entry.settings.base_url ? { apiBase: entry.settings.base_url } : {}),
      });
    }
    case 'slack': {
      refuseProxy(name, entry, 'Slack Bolt');
      const { SlackChannel } = await import('../../adapters/channels/slack.js');
      return new SlackChannel({
        token: tokenOf(name, entry),
        appToken: secretSetting(name, entry, 'app_token'),
        ...(entry.settings.base_url ? { apiUrl: entry.settings.base_url } : {}),
      });
    }
    case 'line': {
      const { LineChannel } = await import('../../adapters/channels/line.js');
      const webhookPath = textSetting(entry, 'webhook_path');
      const dataBase = textSetting(entry, 'data_base_url');
      return new LineChannel({
        channelSecret: secretSetting(name, entry, 'channel_secret'),
        channelAccessToken: secretSetting(name, entry, 'channel_access_token'),
        ...(webhookPath ? { webhookPath } : {}),
        ...(entry.settings.base_url ? { apiBase: entry.settings.base_url } : {}),
        ...(dataBase ? { dataBase } : {}),
      });
    }
    case 'whatsapp':
      return whatsapp(name, entry);
    case 'wecom':
      return (await import('../../adapters/channels/wecom/create.js')).createWeComChannel(name, entry);
    case 'feishu':
      return (await import('../../adapters/channels/feishu/create.js')).createFeishuChannel(name, entry);
    case 'dingtalk':
      return (await import('../../adapters/channels/dingtalk/create.js')).createDingTalkChannel(name, entry);
    case 'qq':
      return (await import('../../adapters/channels/qq/create.js')).createQqChannel(name, entry);
    case 'onebot':
      return (await import('../../adapters/channels/onebot/create.js')).createOneBotChannel(name, entry);
    case 'pico':
      return (await import('../../adapters/channels/pico/create.js')).createPicoServerChannel(name, entry);
    case 'pico_client':
      return (await import('../../adapters/channels/pico/create.js')).createPicoClientChannel(name, entry);
    case 'matrix':
      return (await import('../../adapters/channels/matrix/from-entry.js')).matrixFromEntry(name, entry);
    case 'irc':
      return (await import('../../adapters/channels/irc/create.js')).createIrcChannel(name, entry);
    case 'signal':
      return (await import('../../adapters/channels/signal/create.js')).createSignalChannel(name, entry);
    case 'mattermost':
      return (await import('../../adapters/channels/mattermost/create.js')).createMattermostChannel(name, entry);
    case 'email':
      return (await import('../../adapters/channels/email/create.js')).createEmailChannel(name, entry);
    default:
      throw new ChannelError(
        'bad_settings',
        `channel_list.${name}.type "${kind}" is not supported by ` +
          `this gateway (supported: ${SUPPORTED_KINDS.join(', ')})`,
      );
  }
}
