import type { ChannelEntry } from '../../../store/config/index.js';
import type { Channel } from '../channel.js';
import { refuseProxy, settingsOf } from '../settings-of.js';
import { signalSettingsSchema } from './settings.js';

/** A Signal channel for one `channel_list` entry. */
export async function createSignalChannel(name: string, entry: ChannelEntry): Promise<Channel> {
  refuseProxy(name, entry, 'signal-cli runs beside the gateway and is reached directly');
  const settings = settingsOf(name, entry, signalSettingsSchema);
  const { SignalChannel } = await import('./signal.js');
  const at = settings.daemon_address.lastIndexOf(':');
  return new SignalChannel({
    account: settings.account,
    host: settings.daemon_address.slice(0, at),
    port: Number(settings.daemon_address.slice(at + 1)),
  });
}
