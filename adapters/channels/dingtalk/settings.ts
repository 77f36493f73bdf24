import * as z from 'zod';
import { reasoningChannelId, requiredText } from '../settings-of.js';

/** `channel_list.<name>.settings` of a DingTalk bot in Stream mode, with the peer runtime's field names. */
export const dingtalkSettingsSchema = z.looseObject({
  client_id: requiredText('Client ID (AppKey) of the DingTalk app, from open-dev.dingtalk.com → the app → Credentials'),
  client_secret: requiredText('Client Secret (AppSecret) of the same app (secret)'),
  robot_code: z
    .string()
    .trim()
    .min(1)
    .optional()
    .describe("RobotCode of the app's bot, for messages Tern starts itself and for files; default: the client_id"),
  base_url: z.url().optional().describe('API root instead of https://api.dingtalk.com (a test server)'),
  reasoning_channel_id: reasoningChannelId(),
});

export type DingTalkSettings = z.output<typeof dingtalkSettingsSchema>;
