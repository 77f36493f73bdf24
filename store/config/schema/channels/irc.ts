import * as z from 'zod/mini';
import { bool, secret, text } from '../fields.js';
import { optional } from '../shared.js';

const described = <T extends z.core.SomeType>(schema: T, description: string) =>
  optional(schema).check(z.describe(description));

/** An IRC entry's settings, named as the peer runtime names them (`docs/channels/irc.md`). */
export const ircSettings = z.looseObject({
  server: described(text(), 'host:port of the IRC server, e.g. irc.libera.chat:6697'),
  tls: described(bool(), 'Connect over TLS (default true)'),
  nick: described(text(), "The bot's nickname"),
  user: described(text(), 'Username (ident) sent at login (default: the nick)'),
  real_name: described(text(), 'Real name sent at login (default: the nick)'),
  password: described(secret(), 'Server password (PASS), for servers or bouncers that ask for one'),
  nickserv_password: described(secret(), 'Password sent to NickServ (IDENTIFY) after login'),
  sasl_user: described(text(), 'Account name for SASL PLAIN login'),
  sasl_password: described(secret(), 'Account password for SASL PLAIN login'),
  channels: described(z.array(z.string()), 'Channels the bot joins, e.g. ["#mychannel"]'),
  request_caps: described(z.array(z.string()), 'IRCv3 capabilities to request besides those Tern uses'),
});
