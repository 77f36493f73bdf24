import * as z from 'zod';
import type { ChannelMessage } from '../channel.js';

export const MESSAGE_EVENT = 'im.message.receive_v1';

const userIdSchema = z.looseObject({
  open_id: z.string().optional(),
  user_id: z.string().optional(),
  union_id: z.string().optional(),
});

/** `im.message.receive_v1` as the SDK's dispatcher hands it over (the header's fields beside the event's). */
export const feishuMessageEventSchema = z.looseObject({
  sender: z.looseObject({ sender_id: userIdSchema.optional(), sender_type: z.string().optional() }),
  message: z.looseObject({
    message_id: z.string(),
    chat_id: z.string(),
    /** `p2p` (one-to-one) or `group`. */
    chat_type: z.string(),
    message_type: z.string(),
    /**
     * JSON, by message type: `{"text"}`, `{"title","content"}` (post), `{"file_key"}` (audio, file), `{"image_key"}`.
     */
    content: z.string(),
    /** The topic thread the message is in (a topic group's topic, or a thread opened on a message). */
    thread_id: z.string().optional(),
    mentions: z
      .array(z.looseObject({ key: z.string(), id: userIdSchema.optional(), name: z.string().optional() }))
      .optional(),
  }),
});
export type FeishuMessageEvent = z.infer<typeof feishuMessageEventSchema>;

function parsed(content: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(content);
    return value && typeof value === 'object' ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** A rich-text (post) message's text: its title and every text-bearing element, a line per paragraph. */
function postText(content: Record<string, unknown>): string {
  // A post arrives either as `{title, content}` or keyed by language (`{zh_cn: {title, content}}`).
  const body = Array.isArray(content.content)
    ? content
    : ((Object.values(content).find((v) => v && typeof v === 'object') ?? {}) as Record<string, unknown>);
  const lines = Array.isArray(body.content) ? (body.content as unknown[]) : [];
  const text = lines
    .map((line) =>
      (Array.isArray(line) ? line : [])
        .map((el: { tag?: string; text?: string; href?: string }) =>
          el.tag === 'a' ? (el.text ?? el.href ?? '') : (el.text ?? ''),
        )
        .join(''),
    )
    .join('\n');
  return [typeof body.title === 'string' ? body.title : '', text].filter((part) => part !== '').join('\n');
}

/**
 * A message to the bot in the dispatch vocabulary. In groups Feishu delivers what @-mentions the bot (or, with the
 * group-message permission, everything): `mentioned` says whether the bot's open_id is among the mentions, whose
 * `@_user_N` placeholders are removed from the text. A voice message carries `<message_id>/<file_key>` to download, a
 * picture `image/<message_id>/<image_key>`. A message in a topic thread is answered in it: its `replyTo` is
 * `<chat_id>#<message_id>`, the message the answer replies to. A quote reply outside a thread (`root_id` without a
 * `thread_id`) is answered in the chat, as any other: a thread there would be one its author never opened.
 */
export function fromFeishuEvent(event: FeishuMessageEvent, botOpenId: string | undefined): ChannelMessage | undefined {
  const { message, sender } = event;
  const id = sender.sender_id;
  const senderId = id?.open_id ?? id?.user_id ?? id?.union_id;
  if (!senderId || sender.sender_type === 'app') return undefined;
  const content = parsed(message.content);
  let text =
    message.message_type === 'text'
      ? String(content.text ?? '')
      : message.message_type === 'post'
        ? postText(content)
        : '';
  for (const mention of message.mentions ?? []) text = text.split(mention.key).join('');
  text = text.replace(/[ \t]{2,}/g, ' ').trim();
  const fileKey =
    message.message_type === 'audio' && typeof content.file_key === 'string' ? content.file_key : undefined;
  const imageKey =
    message.message_type === 'image' && typeof content.image_key === 'string' ? content.image_key : undefined;
  if (text === '' && !fileKey && !imageKey) return undefined;
  const group = message.chat_type !== 'p2p';
  const mentioned = group && !!botOpenId && (message.mentions ?? []).some((m) => m.id?.open_id === botOpenId);
  return {
    messageId: message.message_id,
    chat: group ? `group:${message.chat_id}` : `direct:${senderId}`,
    replyTo: message.thread_id ? `${message.chat_id}#${message.message_id}` : message.chat_id,
    sender: senderId,
    senderAliases: [...new Set([id?.open_id, id?.user_id, id?.union_id].filter((a): a is string => !!a))],
    text,
    ...(message.thread_id ? { topic: `topic:${message.thread_id}` } : {}),
    mentioned,
    ...(fileKey
      ? { audio: [{ fileId: `${message.message_id}/${fileKey}`, mime: 'audio/ogg', name: 'voice.opus' }] }
      : {}),
    ...(imageKey
      ? {
          media: [
            {
              kind: 'image',
              fileId: `image/${message.message_id}/${imageKey}`,
              mime: 'image/jpeg',
              name: 'picture.jpg',
            },
          ],
        }
      : {}),
  };
}
