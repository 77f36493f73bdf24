import * as z from 'zod';
import type { ChannelMessage } from './channel.js';

const sourceSchema = z.looseObject({
  type: z.enum(['user', 'group', 'room']),
  userId: z.string().optional(),
  groupId: z.string().optional(),
  roomId: z.string().optional(),
});

/** The parts of a LINE webhook event the gateway reads; other event kinds (follow, postback …) are ignored. */
const eventSchema = z.looseObject({
  type: z.string(),
  timestamp: z.number(),
  webhookEventId: z.string().optional(),
  replyToken: z.string().optional(),
  source: sourceSchema.optional(),
  message: z
    .looseObject({
      id: z.string(),
      type: z.string(),
      text: z.string().optional(),
      fileName: z.string().optional(),
      mention: z
        .looseObject({ mentionees: z.array(z.looseObject({ isSelf: z.boolean().optional() })).optional() })
        .optional(),
    })
    .optional(),
});

export const lineWebhookSchema = z.looseObject({ destination: z.string().optional(), events: z.array(z.unknown()) });
export type LineEvent = z.infer<typeof eventSchema>;

/** The events of a webhook body that parse; the rest are skipped one by one. */
export function lineEvents(body: z.infer<typeof lineWebhookSchema>): LineEvent[] {
  return body.events.flatMap((raw) => {
    const parsed = eventSchema.safeParse(raw);
    return parsed.success ? [parsed.data] : [];
  });
}

/** Where replies to the event go: the group, the room, or the user of a one-to-one chat. */
export function lineChatId(event: LineEvent): string | undefined {
  return event.source?.groupId ?? event.source?.roomId ?? event.source?.userId;
}

/**
 * A LINE message event as a channel message: one-to-one chats are `direct:<user>`, groups `group:<group>`, rooms
 * `group:<room>`; `replyTo` is the chat and, after `#`, the message (whose reply token an answer takes). Pictures,
 * videos, files and audio are fetched by message id (`download`).
 */
export function fromLineEvent(event: LineEvent): ChannelMessage | undefined {
  const message = event.message;
  const chatId = lineChatId(event);
  const sender = event.source?.userId;
  if (event.type !== 'message' || !message || !chatId || !sender) return undefined;
  const direct = event.source?.type === 'user';
  const base = {
    messageId: message.id,
    chat: `${direct ? 'direct' : 'group'}:${chatId}`,
    replyTo: `${chatId}#${message.id}`,
    sender,
    senderAliases: [sender],
    mentioned: message.mention?.mentionees?.some((m) => m.isSelf) ?? false,
  };
  switch (message.type) {
    case 'text':
      return { ...base, text: message.text ?? '' };
    case 'image':
      return {
        ...base,
        text: '',
        media: [{ kind: 'image', fileId: message.id, mime: 'image/jpeg', name: 'image.jpg' }],
      };
    case 'video':
      return {
        ...base,
        text: '',
        media: [{ kind: 'video', fileId: message.id, mime: 'video/mp4', name: 'video.mp4' }],
      };
    case 'file':
      return {
        ...base,
        text: '',
        media: [
          { kind: 'file', fileId: message.id, mime: 'application/octet-stream', name: message.fileName ?? 'file' },
        ],
      };
    case 'audio':
      return { ...base, text: '', audio: [{ fileId: message.id, mime: 'audio/m4a', name: 'audio.m4a' }] };
    default:
      return undefined;
  }
}
