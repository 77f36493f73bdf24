import * as z from 'zod';
import { reasoningChannelId, requiredText } from '../settings-of.js';

/** `channel_list.<name>.settings` of a WeCom intelligent bot on its long connection, with the peer's field names. */
export const wecomSettingsSchema = z.looseObject({
  bot_id: requiredText(
    'Bot ID of the intelligent bot, from the WeCom admin console → the bot → API mode: long connection',
  ),
  secret: requiredText('Secret of the same bot (secret)'),
  websocket_url: z
    .url({
      protocol: /^wss?$/,
      error: 'must be a ws:// or wss:// URL (allowed: the long connection address WeCom shows)',
    })
    .default('wss://openws.work.weixin.qq.com')
    .describe('Long connection address; a privately deployed WeCom shows its own in the admin console'),
  send_thinking_message: z
    .boolean()
    .default(true)
    .describe('Show a "Thinking…" reply at once, replaced by the answer when it is ready'),
  reasoning_channel_id: reasoningChannelId(),
});

export type WeComSettings = z.output<typeof wecomSettingsSchema>;
