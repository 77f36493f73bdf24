import * as z from 'zod/mini';
import { secret, text } from '../fields.js';
import { optional } from '../shared.js';

const described = <T extends z.core.SomeType>(schema: T, description: string) =>
  optional(schema).check(z.describe(description));

/** A `pico_client` entry's settings, as the dashboard's form shows them (`docs/channels/pico_client.md`). */
export const picoClientSettings = z.looseObject({
  url: described(text(), 'WebSocket of the remote Pico server, e.g. wss://host/pico/ws (required)'),
  token: described(secret(), 'Sent as Authorization: Bearer <token> when connecting, if the server asks for one'),
  session_id: described(text(), 'Session of server messages that name none (default: one made at start)'),
  ping_interval: described(z.number(), 'Seconds between pings to the server (default 30)'),
  read_timeout: described(z.number(), 'Seconds of silence after which the connection is made again (default 60)'),
});
