import type { ChannelEntry } from '../../../store/config/index.js';
import type { Channel } from '../channel.js';
import { refuseProxy, settingsOf } from '../settings-of.js';
import { onebotSettingsSchema } from './settings.js';

/** A OneBot v11 channel for one `channel_list` entry. */
export async function createOneBotChannel(name: string, entry: ChannelEntry): Promise<Channel> {
  refuseProxy(name, entry, 'a OneBot implementation runs beside the gateway and is reached directly');
  const settings = settingsOf(name, entry, onebotSettingsSchema);
  const { OneBotChannel } = await import('./onebot.js');
  return new OneBotChannel({
    wsUrl: settings.ws_url,
    ...(settings.access_token ? { accessToken: settings.access_token } : {}),
  });
}
