import * as z from 'zod';
import type { ChannelMessage } from '../channel.js';

/** The fields of an `m.room.message` event the gateway reads. */
export const matrixMessageSchema = z.looseObject({
  type: z.literal('m.room.message'),
  event_id: z.string(),
  sender: z.string(),
  origin_server_ts: z.number(),
  content: z.looseObject({
    msgtype: z.string(),
    body: z.string(),
    filename: z.string().optional(),
    url: z.string().optional(),
    info: z.looseObject({ mimetype: z.string().optional() }).optional(),
    'm.relates_to': z.looseObject({ rel_type: z.string().optional(), event_id: z.string().optional() }).optional(),
    'm.mentions': z.looseObject({ user_ids: z.array(z.string()).optional() }).optional(),
    'org.matrix.msc3245.voice': z.unknown().optional(),
  }),
});
export type MatrixMessageEvent = z.infer<typeof matrixMessageSchema>;

/** Where a reply goes: the room, and after `|` the root of the thread it belongs in. */
export function matrixTarget(replyTo: string): { room: string; thread?: string } {
  const [room = replyTo, thread] = replyTo.split('|');
  return thread ? { room, thread } : { room };
}

const MEDIA_KINDS: Record<string, 'image' | 'video' | 'file'> = {
  'm.image': 'image',
  'm.video': 'video',
  'm.file': 'file',
};

/**
 * A room message in the dispatch vocabulary: a room of two is `direct:<room>`, a larger one `group:<room>`, a thread
 * `topic:<root event>`. The bot is mentioned when `m.mentions` names it or the text carries its user id or local part.
 * A picture's text is its caption (Matrix sends `body` as the caption when `filename` is set beside it).
 */
export function fromMatrixMessage(
  event: MatrixMessageEvent,
  room: string,
  members: number,
  botUserId: string,
): ChannelMessage | undefined {
  if (event.sender === botUserId) return undefined;
  const content = event.content;
  const relation = content['m.relates_to'];
  // Edits (`m.replace`) of earlier messages are not new turns.
  if (relation?.rel_type === 'm.replace') return undefined;
  const thread = relation?.rel_type === 'm.thread' ? relation.event_id : undefined;
  const local = botUserId.replace(/^@/, '').split(':')[0] ?? '';
  const mentioned =
    (content['m.mentions']?.user_ids ?? []).includes(botUserId) ||
    content.body.includes(botUserId) ||
    (local !== '' && new RegExp(`\\b${local.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\b`, 'i').test(content.body));
  const mime = content.info?.mimetype;
  const isFile = content.url !== undefined && content.msgtype !== 'm.text' && content.msgtype !== 'm.notice';
  const name = content.filename ?? content.body;
  const caption = content.filename !== undefined && content.filename !== content.body ? content.body : '';
  const audio = isFile && content.msgtype === 'm.audio';
  const kind = MEDIA_KINDS[content.msgtype];
  if (!isFile && content.msgtype !== 'm.text' && content.msgtype !== 'm.emote') return undefined;
  return {
    messageId: event.event_id,
    chat: `${members <= 2 ? 'direct' : 'group'}:${room}`,
    replyTo: thread ? `${room}|${thread}` : room,
    sender: event.sender,
    senderAliases: [event.sender],
    text: isFile ? caption : content.body,
    ...(thread ? { topic: `topic:${thread}` } : {}),
    mentioned,
    ...(audio ? { audio: [{ fileId: content.url!, mime: mime ?? 'audio/ogg', name }] } : {}),
    ...(isFile && !audio
      ? { media: [{ kind: kind ?? 'file', fileId: content.url!, mime: mime ?? 'application/octet-stream', name }] }
      : {}),
  };
}
