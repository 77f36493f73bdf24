import * as z from 'zod';
import { reasoningChannelId, requiredText } from '../settings-of.js';

/** The peer runtime writes `""` for a field it leaves unset. */
const optionalText = (description: string) =>
  z
    .preprocess((value) => (value === '' ? undefined : value), z.string().trim().min(1).optional())
    .describe(description);

/** `channel_list.<name>.settings` of an IRC channel, with the peer runtime's field names. */
export const ircSettingsSchema = z.looseObject({
  server: requiredText(
    'host:port of the IRC server, e.g. irc.libera.chat:6697 (port default: 6697 with tls, else 6667)',
  ).regex(/^[^\s:]+(:\d{1,5})?$/, 'must be host or host:port (e.g. irc.libera.chat:6697)'),
  tls: z.boolean().default(true).describe('Connect over TLS (default true)'),
  nick: requiredText("The bot's nickname").regex(/^[^\s#,:!@]+$/, 'must be one word without # , : ! @'),
  user: optionalText('Username (ident) sent at login; default: the nick'),
  real_name: optionalText('Real name (gecos) sent at login; default: the nick'),
  password: optionalText('Server password (PASS), for servers or bouncers that ask for one (secret)'),
  nickserv_password: optionalText('Password sent to NickServ (IDENTIFY) after login (secret)'),
  sasl_user: optionalText('Account name for SASL PLAIN login (with sasl_password)'),
  sasl_password: optionalText('Account password for SASL PLAIN login (secret)'),
  channels: z
    .array(z.string().regex(/^[#&+!][^\s,]+$/, 'must be a channel name such as #mychannel'))
    .default([])
    .describe('Channels the bot joins, e.g. ["#mychannel"]'),
  request_caps: z
    .array(z.string().regex(/^\S+$/))
    .default([])
    .describe('IRCv3 capabilities to request besides those Tern uses, e.g. ["server-time", "message-tags"]'),
  reasoning_channel_id: reasoningChannelId(),
});

export type IrcSettings = z.output<typeof ircSettingsSchema>;

/** `host:port` as its parts; the port IRC uses by default for the transport. */
export function ircAddress(settings: Pick<IrcSettings, 'server' | 'tls'>): { host: string; port: number } {
  const [host = '', port] = settings.server.split(':');
  return { host, port: port ? Number(port) : settings.tls ? 6697 : 6667 };
}
