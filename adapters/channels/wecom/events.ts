import * as z from 'zod';
import type { ChannelMessage } from '../channel.js';

/** The body of an `aibot_msg_callback` frame: a message to the bot. */
export const wecomMessageSchema = z.looseObject({
  msgid: z.string(),
  /** Only in groups. */
  chatid: z.string().optional(),
  chattype: z.string(),
  from: z.looseObject({ userid: z.string() }),
  msgtype: z.string(),
  text: z.looseObject({ content: z.string() }).optional(),
  /** WeCom transcribes voice itself: the callback carries the text. */
  voice: z.looseObject({ content: z.string() }).optional(),
  mixed: z
    .looseObject({
      msg_item: z.array(
        z.looseObject({ msgtype: z.string(), text: z.looseObject({ content: z.string() }).optional() }),
      ),
    })
    .optional(),
});
export type WeComMessage = z.infer<typeof wecomMessageSchema>;

/** Where replies go outside a callback's window: `single:<userid>` or `group:<chatid>`. */
export function wecomTarget(message: WeComMessage): string {
  return message.chattype === 'group' && message.chatid ? `group:${message.chatid}` : `single:${message.from.userid}`;
}

function textOf(message: WeComMessage): string {
  switch (message.msgtype) {
    case 'text':
      return message.text?.content ?? '';
    case 'voice':
      return message.voice?.content ? `[voice message] ${message.voice.content}` : '';
    case 'image':
      return '[image]';
    case 'mixed':
      return (message.mixed?.msg_item ?? [])
        .map((item) => (item.msgtype === 'text' ? (item.text?.content ?? '') : '[image]'))
        .join('\n');
    default:
      return '';
  }
}

/**
 * A message in the dispatch vocabulary. WeCom hands a bot only the group messages that @-mention it, the mention
 * first in the text: it is taken off.
 */
export function fromWeComMessage(message: WeComMessage): ChannelMessage | undefined {
  const group = message.chattype === 'group' && !!message.chatid;
  let text = textOf(message).trim();
  if (group) text = text.replace(/^@\S+\s*/, '');
  if (text === '') return undefined;
  return {
    messageId: message.msgid,
    chat: group ? `group:${message.chatid}` : `direct:${message.from.userid}`,
    replyTo: wecomTarget(message),
    sender: message.from.userid,
    senderAliases: [message.from.userid],
    text,
    mentioned: group,
  };
}
