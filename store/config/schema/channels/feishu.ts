import * as z from 'zod/mini';
import { bool, secret, text } from '../fields.js';
import { optional } from '../shared.js';

const described = <T extends z.core.SomeType>(schema: T, description: string) =>
  optional(schema).check(z.describe(description));

/** A Feishu / Lark entry's settings, as the dashboard's form shows them (`docs/channels/feishu.md`). */
export const feishuSettings = z.looseObject({
  app_id: described(text(), 'App ID of the self-built app (cli_…), from the developer console → Credentials'),
  app_secret: described(secret(), 'App Secret of the same app'),
  encrypt_key: described(secret(), 'Encrypt Key (Events and Callbacks → Encryption strategy), when set there'),
  verification_token: described(secret(), 'Verification Token from the same page; kept for peer runtime configs'),
  is_lark: described(bool(), 'The app is on Lark (open.larksuite.com) rather than Feishu (open.feishu.cn)'),
  random_reaction_emoji: described(
    z.array(z.string()),
    'Reactions put on a message when it is taken, one at random (e.g. THUMBSUP, Pin); [] for none',
  ),
  base_url: described(text(), 'Open platform root instead of open.feishu.cn / open.larksuite.com (a test server)'),
});
