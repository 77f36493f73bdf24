import * as z from 'zod/mini';
import { bool, secret, text } from '../fields.js';
import { optional } from '../shared.js';

const described = <T extends z.core.SomeType>(schema: T, description: string) =>
  optional(schema).check(z.describe(description));

/** A WeCom intelligent bot entry's settings, as the dashboard's form shows them (`docs/channels/wecom.md`). */
export const wecomSettings = z.looseObject({
  bot_id: described(text(), 'Bot ID of the intelligent bot (admin console → the bot → API mode: long connection)'),
  secret: described(secret(), 'Secret of the same bot'),
  websocket_url: described(text(), 'Long connection address (default wss://openws.work.weixin.qq.com)'),
  send_thinking_message: described(bool(), 'Show "Thinking…" at once, replaced by the answer (default true)'),
});
