import * as z from 'zod/mini';
import { bool, secret, text } from '../fields.js';
import { optional } from '../shared.js';

const described = <T extends z.core.SomeType>(schema: T, description: string) =>
  optional(schema).check(z.describe(description));

/** A QQ official bot entry's settings, as the dashboard's form shows them (`docs/channels/qq.md`). */
export const qqSettings = z.looseObject({
  app_id: described(text(), 'AppID of the bot (QQ Open Platform → Development → Development settings)'),
  app_secret: described(secret(), 'AppSecret of the bot, from the same page'),
  sandbox: described(bool(), 'Use the sandbox API (sandbox.api.sgroup.qq.com), for a bot still in testing'),
  max_message_length: described(z.number(), 'Longest reply in one message, 100 to 5000 characters (default 2000)'),
  send_markdown: described(bool(), 'Send replies as QQ Markdown (msg_type 2); needs the Markdown permission'),
  base_url: described(text(), 'API root instead of api.sgroup.qq.com (a test server); also its token endpoint'),
});
