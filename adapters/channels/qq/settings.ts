import * as z from 'zod';
import { reasoningChannelId, requiredText } from '../settings-of.js';

/** `channel_list.<name>.settings` of a QQ official bot, with the peer runtime's field names. */
export const qqSettingsSchema = z.looseObject({
  app_id: requiredText('AppID of the bot, from the QQ Open Platform (q.qq.com) → Development → Development settings'),
  app_secret: requiredText('AppSecret of the bot, from the same page (secret)'),
  sandbox: z
    .boolean()
    .default(false)
    .describe('Use the sandbox API (sandbox.api.sgroup.qq.com), for a bot still in testing'),
  max_message_length: z
    .number()
    .int()
    .min(100)
    .max(5000)
    .default(2000)
    .describe('Longest reply in one message, in characters; longer replies are split'),
  send_markdown: z
    .boolean()
    .default(false)
    .describe('Send replies as QQ Markdown (msg_type 2); the bot needs the Markdown permission'),
  base_url: z
    .url()
    .optional()
    .describe('API root instead of api.sgroup.qq.com (a test server); also its token endpoint'),
  reasoning_channel_id: reasoningChannelId(),
});

export type QqSettings = z.output<typeof qqSettingsSchema>;
