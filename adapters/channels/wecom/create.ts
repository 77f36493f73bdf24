import type { ChannelEntry } from '../../../store/config/index.js';
import type { Channel } from '../channel.js';
import { refuseProxy, settingsOf } from '../settings-of.js';
import { wecomSettingsSchema } from './settings.js';

/** A WeCom intelligent bot channel for one `channel_list` entry, on @wecom/aibot-node-sdk's long connection. */
export async function createWeComChannel(name: string, entry: ChannelEntry): Promise<Channel> {
  refuseProxy(name, entry, '@wecom/aibot-node-sdk opens its WebSocket itself');
  const settings = settingsOf(name, entry, wecomSettingsSchema);
  const { WeComChannel } = await import('./wecom.js');
  return new WeComChannel({
    botId: settings.bot_id,
    secret: settings.secret,
    wsUrl: settings.websocket_url,
    thinking: settings.send_thinking_message,
  });
}
