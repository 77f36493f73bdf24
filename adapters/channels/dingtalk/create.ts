import type { ChannelEntry } from '../../../store/config/index.js';
import type { Channel } from '../channel.js';
import { refuseProxy, settingsOf } from '../settings-of.js';
import { dingtalkSettingsSchema, type DingTalkSettings } from './settings.js';

export const DINGTALK_API = 'https://api.dingtalk.com';
/** The older API, which still takes media uploads. */
export const DINGTALK_OAPI = 'https://oapi.dingtalk.com';

/** The roots of DingTalk's two APIs; a test server given as `base_url` serves both. */
export function dingtalkEndpoints(settings: DingTalkSettings): { apiBase: string; oapiBase: string } {
  return {
    apiBase: (settings.base_url ?? DINGTALK_API).replace(/\/+$/, ''),
    oapiBase: (settings.base_url ?? DINGTALK_OAPI).replace(/\/+$/, ''),
  };
}

/** A DingTalk Stream mode channel for one `channel_list` entry. */
export async function createDingTalkChannel(name: string, entry: ChannelEntry): Promise<Channel> {
  refuseProxy(name, entry, 'dingtalk-stream opens its WebSocket itself');
  const settings = settingsOf(name, entry, dingtalkSettingsSchema);
  const { DingTalkChannel } = await import('./dingtalk.js');
  return new DingTalkChannel({
    clientId: settings.client_id,
    clientSecret: settings.client_secret,
    robotCode: settings.robot_code ?? settings.client_id,
    ...dingtalkEndpoints(settings),
  });
}
