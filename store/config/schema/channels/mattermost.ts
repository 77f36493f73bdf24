import * as z from 'zod/mini';
import { secret, text } from '../fields.js';
import { optional } from '../shared.js';

const described = <T extends z.core.SomeType>(schema: T, description: string) =>
  optional(schema).check(z.describe(description));

/** A Mattermost entry's settings (`docs/channels/mattermost.md`). */
export const mattermostSettings = z.looseObject({
  server_url: described(text(), 'Address of the Mattermost server, e.g. https://chat.example.com'),
  token: described(secret(), 'Access token of the bot account (Integrations → Bot Accounts)'),
});
