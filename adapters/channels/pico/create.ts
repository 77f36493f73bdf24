import { randomUUID } from 'node:crypto';
import type { ChannelEntry } from '../../../store/config/index.js';
import type { Channel } from '../channel.js';
import { refuseProxy, settingsOf } from '../settings-of.js';
import { picoClientSettingsSchema, picoServerSettingsSchema } from './settings.js';

/** A Pico Protocol client channel for one `channel_list` entry (`type: pico_client`). */
export async function createPicoClientChannel(name: string, entry: ChannelEntry): Promise<Channel> {
  refuseProxy(name, entry, 'the Pico server is reached directly over its WebSocket');
  const settings = settingsOf(name, entry, picoClientSettingsSchema);
  const { PicoClientChannel } = await import('./client.js');
  return new PicoClientChannel({
    url: settings.url,
    ...(settings.token ? { token: settings.token } : {}),
    sessionId: settings.session_id || randomUUID(),
    pingIntervalMs: settings.ping_interval * 1000,
    readTimeoutMs: settings.read_timeout * 1000,
  });
}

/** A Pico Protocol server channel of `tern gateway` for one `channel_list` entry (`type: pico`), at `/pico/ws`. */
export async function createPicoServerChannel(name: string, entry: ChannelEntry): Promise<Channel> {
  const settings = settingsOf(name, entry, picoServerSettingsSchema);
  const { PicoGatewayChannel } = await import('./gateway-channel.js');
  return new PicoGatewayChannel({
    name,
    token: settings.token,
    allowTokenQuery: settings.allow_token_query,
    allowOrigins: settings.allow_origins,
    maxConnections: settings.max_connections,
    pingIntervalMs: settings.ping_interval * 1000,
    readTimeoutMs: settings.read_timeout * 1000,
  });
}
