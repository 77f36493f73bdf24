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
  /** A picture: its address, AES-256 encrypted with `aeskey` (one key per address). */
  image: z.looseObject({ url: z.string(), aeskey: z.string().optional() }).optional(),
  /** WeCom transcribes voice itself: the callback carries the text. */
  voice: z.looseObject({ content: z.string() }).optional(),
  mixed: z
    .looseObject({
      msg_item: z.array(
        z.looseObject({
          msgtype: z.string(),
          text: z.looseObject({ content: z.string() }).optional(),
          image: z.looseObject({ url: z.string(), aeskey: z.string().optional() }).optional(),
        }),
      ),
    })
    .optional(),
});
export type WeComMessage = z.infer<typeof wecomMessageSchema>;

/** Where replies go outside a callback's window: `single:<userid>` or `group:<chatid>`. */
export function wecomTarget(message: WeComMessage): string {
  return message.chattype === 'group' && message.chatid ? `group:${message.chatid}` : `single:${message.from.userid}`;
}

/**
 * A reply target: the chat (`single:<userid>`, `group:<chatid>`) and, for the answer to one message, that message's
 * id after `#`, whose callback the answer goes out on.
 */
export function parseWeComTarget(replyTo: string): { chat: string; kind: 'single' | 'group'; messageId?: string } {
  const [, kind = 'single', chat = replyTo, messageId] = /^(single|group):([^#]*)(?:#(.+))?$/.exec(replyTo) ?? [];
  return { chat, kind: kind === 'group' ? 'group' : 'single', ...(messageId ? { messageId } : {}) };
}

function textOf(message: WeComMessage): string {
  switch (message.msgtype) {
    case 'text':
      return message.text?.content ?? '';
    case 'voice':
      return message.voice?.content ? `[voice message] ${message.voice.content}` : '';
    case 'mixed':
      return (message.mixed?.msg_item ?? [])
        .filter((item) => item.msgtype === 'text')
        .map((item) => item.text?.content ?? '')
        .join('\n');
    default:
      return '';
  }
}

type WeComImage = { url: string; aeskey?: string | undefined };

/** The pictures of a message; a file id is the address and its key, which `download` fetches and decrypts. */
function picturesOf(message: WeComMessage): Array<NonNullable<ChannelMessage['media']>[number]> {
  const images: WeComImage[] =
    message.msgtype === 'image' && message.image
      ? [message.image]
      : (message.mixed?.msg_item ?? []).flatMap((item) => (item.msgtype === 'image' && item.image ? [item.image] : []));
  return images.map((image, i) => ({
    kind: 'image',
    fileId: JSON.stringify([image.url, image.aeskey ?? '']),
    mime: 'image/jpeg',
    name: `picture${i + 1}.jpg`,
  }));
}

/** The address and key of a picture's file id. */
export function wecomFileOf(fileId: string): { url: string; aeskey: string } {
  const [url, aeskey] = JSON.parse(fileId) as [string, string];
  return { url, aeskey };
}

/**
 * A message in the dispatch vocabulary. WeCom hands a bot only the group messages that @-mention it, the mention
 * first in the text: it is taken off.
 */
export function fromWeComMessage(message: WeComMessage): ChannelMessage | undefined {
  const group = message.chattype === 'group' && !!message.chatid;
  let text = textOf(message).trim();
  if (group) text = text.replace(/^@\S+\s*/, '');
  const media = picturesOf(message);
  if (text === '' && media.length === 0) return undefined;
  return {
    messageId: message.msgid,
    chat: group ? `group:${message.chatid}` : `direct:${message.from.userid}`,
    replyTo: `${wecomTarget(message)}#${message.msgid}`,
    sender: message.from.userid,
    senderAliases: [message.from.userid],
    text,
    mentioned: group,
    ...(media.length > 0 ? { media } : {}),
  };
}
