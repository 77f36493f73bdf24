import type { ChannelEntry } from '../../../store/config/index.js';
import type { Channel } from '../channel.js';
import { refuseProxy, settingsOf } from '../settings-of.js';
import { qqSettingsSchema } from './settings.js';

const API = 'https://api.sgroup.qq.com';
const SANDBOX_API = 'https://sandbox.api.sgroup.qq.com';
const TOKEN_URL = 'https://bots.qq.com/app/getAppAccessToken';

/** The OpenAPI root and token endpoint these settings name (a `base_url` serves both, as a test server does). */
export function qqEndpoints(settings: { sandbox: boolean; base_url?: string | undefined }): {
  apiBase: string;
  tokenUrl: string;
} {
  const base = settings.base_url?.replace(/\/+$/, '');
  if (base) return { apiBase: base, tokenUrl: `${base}/app/getAppAccessToken` };
  return { apiBase: settings.sandbox ? SANDBOX_API : API, tokenUrl: TOKEN_URL };
}

/** A QQ official bot channel for one `channel_list` entry. */
export async function createQqChannel(name: string, entry: ChannelEntry): Promise<Channel> {
  refuseProxy(name, entry, 'the QQ gateway WebSocket would not go through it');
  const settings = settingsOf(name, entry, qqSettingsSchema);
  const { QqChannel } = await import('./qq.js');
  return new QqChannel({
    appId: settings.app_id,
    appSecret: settings.app_secret,
    ...qqEndpoints(settings),
    maxMessageLength: settings.max_message_length,
    sendMarkdown: settings.send_markdown,
  });
}
