import type { ChannelEntry } from '../../../store/config/index.js';
import type { Channel } from '../channel.js';
import { refuseProxy, settingsOf } from '../settings-of.js';
import { mattermostSettingsSchema } from './settings.js';

/** A Mattermost channel for one `channel_list` entry; `@mattermost/client` loads when it starts. */
export async function createMattermostChannel(name: string, entry: ChannelEntry): Promise<Channel> {
  refuseProxy(name, entry, "Client4 calls the process's fetch and the events come over a WebSocket of their own");
  const settings = settingsOf(name, entry, mattermostSettingsSchema);
  const { MattermostChannel } = await import('./mattermost.js');
  return new MattermostChannel({ serverUrl: settings.server_url, token: settings.token });
}
