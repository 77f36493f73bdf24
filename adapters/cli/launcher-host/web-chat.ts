import type { ChannelEntry, LoadedConfig } from '../../../store/config/index.js';
import { channelEntrySchema, WEB_UI_CHANNEL_TYPE } from '../../../store/config/schema/channel-list.js';
import type { Channel } from '../../channels/channel.js';
import { PicoChannel } from '../../channels/pico/server-channel.js';
import type { PicoEndpoint } from '../../channels/pico/endpoint.js';

/** The entry name the launcher gives its web-UI channel when `channel_list` has none of type `pico`. */
const WEB_UI_CHANNEL = 'pico';

/**
 * The launcher always serves the Chat page, so a config without an enabled `pico` entry gets one, with the
 * spec's channel defaults (streaming off until an entry enables it). An entry of the user's own wins, and a
 * disabled one keeps the web chat off.
 */
export function withWebChat(loaded: LoadedConfig): LoadedConfig {
  if (Object.values(loaded.config.channel_list).some((entry) => entry.type === WEB_UI_CHANNEL_TYPE)) return loaded;
  const implicit: ChannelEntry = { ...channelEntrySchema.parse({ enabled: true }), type: WEB_UI_CHANNEL_TYPE };
  return {
    ...loaded,
    config: { ...loaded.config, channel_list: { ...loaded.config.channel_list, [WEB_UI_CHANNEL]: implicit } },
  };
}

/**
 * How the gateway builds its `pico` channels: each one speaks through the launcher's `/pico/ws`. Only the
 * signed-in owner reaches it, so it is a local channel like the CLI unless its entry sets `settings.trusted: false`.
 */
export function webChatChannels(
  endpoint: PicoEndpoint,
): Record<string, (name: string, entry: ChannelEntry) => Promise<Channel>> {
  return {
    [WEB_UI_CHANNEL_TYPE]: async (name, entry) => new PicoChannel(endpoint, name, entry.settings.trusted !== false),
  };
}
