import * as z from 'zod/mini';
import { secret, text } from '../fields.js';
import { optional } from '../shared.js';

const described = <T extends z.core.SomeType>(schema: T, description: string) =>
  optional(schema).check(z.describe(description));

/** A OneBot v11 entry's settings, as the dashboard's form shows them (`docs/channels/onebot.md`). */
export const onebotSettings = z.looseObject({
  ws_url: described(text(), 'Forward WebSocket of NapCat or Lagrange (default ws://127.0.0.1:3001)'),
  access_token: described(secret(), 'The access token set in the OneBot implementation, if any'),
  reconnect_interval: described(z.number(), 'Seconds before the first reconnect, doubling up to 60 (default 5)'),
  prefixes: described(z.array(z.string()), 'In groups, answer only messages starting with one of these (stripped)'),
});
