import * as z from 'zod/mini';
import { secret } from '../fields.js';
import { optional } from '../shared.js';

const described = <T extends z.core.SomeType>(schema: T, description: string) =>
  optional(schema).check(z.describe(description));

/**
 * A `pico` entry's settings as `tern gateway` serves it, as the dashboard's form shows them (`docs/channels/pico.md`).
 */
export const picoSettings = z.looseObject({
  token: described(secret(), 'The secret clients show: Authorization: Bearer <token> or subprotocol token.<token>'),
  allow_token_query: described(z.boolean(), 'Also take the token as ?token= in the address (default false)'),
  allow_origins: described(z.array(z.string()), 'Origins a browser may connect from ("*": any; empty: any)'),
  max_connections: described(z.number(), 'Open client sockets at most (default 100)'),
  ping_interval: described(z.number(), 'Seconds between pings to each client (default 30)'),
  read_timeout: described(z.number(), 'Seconds of silence after which a client is dropped (default 60)'),
});
