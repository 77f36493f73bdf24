import type { ChannelEntry } from '../../../store/config/index.js';
import type { Channel } from '../channel.js';
import { refuseProxy, settingsOf } from '../settings-of.js';
import { feishuSettingsSchema } from './settings.js';

export const FEISHU_DOMAIN = 'https://open.feishu.cn';
export const LARK_DOMAIN = 'https://open.larksuite.com';

/** The open platform root these settings name. */
export function feishuDomain(settings: { is_lark: boolean; base_url?: string | undefined }): string {
  return settings.base_url?.replace(/\/+$/, '') ?? (settings.is_lark ? LARK_DOMAIN : FEISHU_DOMAIN);
}

/** A Feishu / Lark channel for one `channel_list` entry, on the SDK's long connection. */
export async function createFeishuChannel(name: string, entry: ChannelEntry): Promise<Channel> {
  refuseProxy(name, entry, '@larksuiteoapi/node-sdk opens its connections itself');
  const settings = settingsOf(name, entry, feishuSettingsSchema);
  const { FeishuChannel } = await import('./feishu.js');
  return new FeishuChannel({
    appId: settings.app_id,
    appSecret: settings.app_secret,
    encryptKey: settings.encrypt_key ?? '',
    verificationToken: settings.verification_token ?? '',
    domain: feishuDomain(settings),
    reactions: settings.random_reaction_emoji,
  });
}
