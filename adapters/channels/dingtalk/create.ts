import type { ChannelEntry } from '../../../store/config/index.js';
import type { Channel } from '../channel.js';
import { refuseProxy, settingsOf } from '../settings-of.js';
import { dingtalkSettingsSchema } from './settings.js';

export const DINGTALK_API = 'https://api.dingtalk.com';

/** A DingTalk Stream mode channel for one `channel_list` entry. */
export async function createDingTalkChannel(name: string, entry: ChannelEntry): Promise<Channel> {
  refuseProxy(name, entry, 'dingtalk-stream opens its WebSocket itself');
  const settings = settingsOf(name, entry, dingtalkSettingsSchema);
  const { DingTalkChannel } = await import('./dingtalk.js');
  return new DingTalkChannel({
    clientId: settings.client_id,
    clientSecret: settings.client_secret,
    robotCode: settings.robot_code ?? settings.client_id,
    apiBase: (settings.base_url ?? DINGTALK_API).replace(/\/+$/, ''),
  });
}
