import * as z from 'zod';
import { reasoningChannelId, requiredText } from '../settings-of.js';

/** `channel_list.<name>.settings` of a Feishu / Lark app bot, with the peer runtime's field names. */
export const feishuSettingsSchema = z.looseObject({
  app_id: requiredText(
    'App ID of the self-built app, from the developer console → the app → Credentials (cli_…)',
  ).regex(/^cli_[0-9a-fA-F]{16}$/, 'must be an App ID such as cli_a1b2c3d4e5f60718 (cli_ and 16 hex digits)'),
  app_secret: requiredText('App Secret of the same app (secret)'),
  encrypt_key: z
    .string()
    .optional()
    .describe(
      'Encrypt Key from Events and Callbacks → Encryption strategy, when set there (secret); none: events plain',
    ),
  verification_token: z
    .string()
    .optional()
    .describe('Verification Token from the same page (secret); kept for configs of the peer runtime'),
  is_lark: z
    .boolean()
    .default(false)
    .describe('The app is on Lark (open.larksuite.com, outside China) rather than Feishu (open.feishu.cn)'),
  random_reaction_emoji: z
    .array(z.string().trim().min(1))
    .default(['Pin'])
    .describe(
      'Reactions (Feishu emoji types such as THUMBSUP, OK, Pin) put on a message when it is taken, one at random; ' +
        '[]: none',
    ),
  base_url: z
    .url()
    .optional()
    .describe('Open platform root instead of open.feishu.cn / open.larksuite.com (a test server)'),
  reasoning_channel_id: reasoningChannelId(),
});

export type FeishuSettings = z.output<typeof feishuSettingsSchema>;
