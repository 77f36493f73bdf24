import * as z from 'zod/mini';
import { bool, secret, text } from '../fields.js';
import { optional } from '../shared.js';

const described = <T extends z.core.SomeType>(schema: T, description: string) =>
  optional(schema).check(z.describe(description));
const UNUSED = 'Peer field for end-to-end encryption keys; not used: Tern refuses encrypted rooms';

/** A Matrix entry's settings, named as the peer runtime names them (`docs/channels/matrix.md`). */
export const matrixSettings = z.looseObject({
  homeserver: described(text(), "Client-server API root of the bot's homeserver, e.g. https://matrix.org"),
  user_id: described(text(), "The bot account's full user id, e.g. @tern:matrix.org"),
  access_token: described(secret(), 'Access token of the bot account (Element: Settings → Help & About)'),
  device_id: described(text(), 'Device id the access token was issued to (optional)'),
  join_on_invite: described(bool(), 'Join rooms the bot is invited to (default true)'),
  message_format: described(text(), 'markdown (HTML beside the text, default) or plain'),
  crypto_database_path: described(text(), UNUSED),
  crypto_passphrase: described(secret(), UNUSED),
});
