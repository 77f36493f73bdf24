import * as z from 'zod';
import type { ChannelMessage } from '../channel.js';

const id = z.union([z.number(), z.string()]).transform(String);

/** One segment of a OneBot v11 message (array format): text, at, reply, image, record, … */
const segmentSchema = z.looseObject({ type: z.string(), data: z.record(z.string(), z.unknown()).default({}) });
export type Segment = z.infer<typeof segmentSchema>;

/** A message event as OneBot v11 posts it; `message` is an array of segments or a CQ-coded string. */
export const onebotMessageSchema = z.looseObject({
  post_type: z.literal('message'),
  message_type: z.enum(['private', 'group']),
  message_id: id,
  user_id: id,
  group_id: id.optional(),
  self_id: id.optional(),
  message: z.union([z.array(segmentSchema), z.string()]),
  raw_message: z.string().optional(),
  sender: z.looseObject({ nickname: z.string().optional(), card: z.string().optional() }).optional(),
});
export type OneBotMessage = z.infer<typeof onebotMessageSchema>;

/** An action's answer (`echo` names the call it answers). */
export const onebotAnswerSchema = z.looseObject({
  echo: z.union([z.string(), z.number()]).transform(String),
  status: z.string(),
  retcode: z.number(),
  data: z.unknown().optional(),
  msg: z.string().optional(),
  wording: z.string().optional(),
});
export type OneBotAnswer = z.infer<typeof onebotAnswerSchema>;

const unescapeCq = (text: string): string =>
  text.replace(/&#91;/g, '[').replace(/&#93;/g, ']').replace(/&#44;/g, ',').replace(/&amp;/g, '&');

/** A CQ-coded string (`hi [CQ:at,qq=10001] there`) as the segments it stands for. */
export function cqSegments(text: string): Segment[] {
  const segments: Segment[] = [];
  let rest = text;
  const code = /\[CQ:([a-z_]+)((?:,[^,\]]*)*)\]/;
  for (let match = code.exec(rest); match; match = code.exec(rest)) {
    if (match.index > 0) segments.push({ type: 'text', data: { text: unescapeCq(rest.slice(0, match.index)) } });
    const data = Object.fromEntries(
      (match[2] ?? '')
        .split(',')
        .filter(Boolean)
        .map((pair) => {
          const at = pair.indexOf('=');
          return [pair.slice(0, at), unescapeCq(pair.slice(at + 1))];
        }),
    );
    segments.push({ type: match[1]!, data });
    rest = rest.slice(match.index + match[0].length);
  }
  if (rest) segments.push({ type: 'text', data: { text: unescapeCq(rest) } });
  return segments;
}

/** QQ names a picture by its hash and extension; most are JPEG. */
const imageMime = (name: string): string =>
  /\.png$/i.test(name) ? 'image/png' : /\.gif$/i.test(name) ? 'image/gif' : 'image/jpeg';

const str = (value: unknown): string => (typeof value === 'string' || typeof value === 'number' ? String(value) : '');

/** Where a reply to this message goes: `private:<user>` or `group:<group>` (the peer runtime's chat ids). */
export function replyTarget(event: OneBotMessage): string {
  return event.message_type === 'group' && event.group_id ? `group:${event.group_id}` : `private:${event.user_id}`;
}

/**
 * A message event in the dispatch vocabulary. Text segments make the text; an `at` of the bot marks it mentioned
 * and is dropped, another `at` stays as `@<qq>`; pictures, files and recordings become media with their URL as the id.
 */
export function fromOneBotMessage(event: OneBotMessage, selfId: string): ChannelMessage | undefined {
  if (event.user_id === selfId) return undefined;
  const segments = typeof event.message === 'string' ? cqSegments(event.message) : event.message;
  let mentioned = false;
  const text: string[] = [];
  const audio: NonNullable<ChannelMessage['audio']> = [];
  const media: NonNullable<ChannelMessage['media']> = [];
  for (const segment of segments) {
    const data = segment.data;
    if (segment.type === 'text') text.push(str(data.text));
    else if (segment.type === 'at') {
      if (str(data.qq) === selfId) mentioned = true;
      else text.push(`@${str(data.qq)}`);
    } else if (segment.type === 'face') text.push('[emoji]');
    else if (segment.type === 'record' && str(data.url ?? data.file)) {
      audio.push({ fileId: str(data.url ?? data.file), mime: 'audio/amr', name: 'voice.amr' });
    } else if (segment.type === 'image' && str(data.url ?? data.file)) {
      const name = str(data.file) || 'image.jpg';
      media.push({ kind: 'image', fileId: str(data.url ?? data.file), mime: imageMime(name), name });
    }
  }
  const body = text.join('').replace(/\s+/g, ' ').trim();
  if (body === '' && audio.length === 0 && media.length === 0) return undefined;
  const group = event.message_type === 'group' && event.group_id;
  return {
    messageId: `${event.message_id}`,
    chat: group ? `group:${event.group_id}` : `direct:${event.user_id}`,
    replyTo: replyTarget(event),
    sender: event.user_id,
    senderAliases: [event.user_id],
    text: body,
    mentioned,
    ...(audio.length > 0 ? { audio } : {}),
    ...(media.length > 0 ? { media } : {}),
  };
}
