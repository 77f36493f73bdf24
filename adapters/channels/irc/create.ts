import type { ChannelEntry } from '../../../store/config/index.js';
import type { Channel } from '../channel.js';
import { refuseProxy, settingsOf } from '../settings-of.js';
import { ircAddress, ircSettingsSchema } from './settings.js';

/** An IRC channel for one `channel_list` entry; irc-framework loads only now. */
export async function createIrcChannel(name: string, entry: ChannelEntry): Promise<Channel> {
  refuseProxy(name, entry, 'irc-framework opens its own TCP connection');
  const settings = settingsOf(name, entry, ircSettingsSchema);
  const { IrcChannel } = await import('./irc.js');
  const { sasl_user: account, sasl_password: password } = settings;
  return new IrcChannel({
    ...ircAddress(settings),
    tls: settings.tls,
    nick: settings.nick,
    channels: settings.channels,
    requestCaps: settings.request_caps,
    ...(settings.user ? { user: settings.user } : {}),
    ...(settings.real_name ? { realName: settings.real_name } : {}),
    ...(settings.password ? { password: settings.password } : {}),
    ...(settings.nickserv_password ? { nickservPassword: settings.nickserv_password } : {}),
    ...(account && password ? { sasl: { account, password } } : {}),
  });
}
