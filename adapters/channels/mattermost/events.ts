import * as z from 'zod';
import type { ChannelMessage } from '../channel.js';

/** A WebSocket event of Mattermost; a `posted` event carries its post as a JSON string. */
export const wsEventSchema = z.looseObject({
  event: z.string(),
  data: z.record(z.string(), z.unknown()).default({}),
});

const fileSchema = z.looseObject({
  id: z.string(),
  name: z.string().default('file'),
  mime_type: z.string().default(''),
});

const postSchema = z.looseObject({
  id: z.string(),
  user_id: z.string(),
  channel_id: z.string(),
  root_id: z.string().default(''),
  message: z.string().default(''),
  type: z.string().default(''),
  /** The files of a post, as `posted` events carry them (`metadata.files`, one per `file_ids` entry). */
  metadata: z.looseObject({ files: z.array(fileSchema).default([]) }).optional(),
});

type FileInfo = z.infer<typeof fileSchema>;

function mediaKind(mime: string): 'image' | 'video' | 'file' {
  if (mime.startsWith('image/')) return 'image';
  return mime.startsWith('video/') ? 'video' : 'file';
}

/** A post's files: recordings as audio (transcribed), the rest as media; the file id is what `download` fetches. */
function filesOf(files: FileInfo[]): Pick<ChannelMessage, 'audio' | 'media'> {
  const mime = (f: FileInfo): string => f.mime_type || 'application/octet-stream';
  const audio = files.filter((f) => f.mime_type.startsWith('audio/'));
  const media = files.filter((f) => !f.mime_type.startsWith('audio/'));
  return {
    ...(audio.length ? { audio: audio.map((f) => ({ fileId: f.id, mime: mime(f), name: f.name })) } : {}),
    ...(media.length
      ? { media: media.map((f) => ({ kind: mediaKind(f.mime_type), fileId: f.id, mime: mime(f), name: f.name })) }
      : {}),
  };
}

/** `<channel>` or `<channel>/<root post>` (a thread) as where a reply goes. */
export function mattermostTarget(replyTo: string): { channel_id: string; root_id?: string } {
  const [channel_id = replyTo, root_id] = replyTo.split('/');
  return root_id ? { channel_id, root_id } : { channel_id };
}

/**
 * A `posted` event in the dispatch vocabulary; the bot's own posts and system posts are none. A direct channel (`D`)
 * is a direct chat; elsewhere the bot is mentioned by `@<username>` (dropped from the text) and a reply in a thread
 * stays in it.
 */
export function fromPosted(
  data: Record<string, unknown>,
  me: { id: string; username: string },
): ChannelMessage | undefined {
  const parsed = typeof data.post === 'string' ? postSchema.safeParse(JSON.parse(data.post)) : undefined;
  if (!parsed?.success) return undefined;
  const post = parsed.data;
  if (post.user_id === me.id || post.type !== '') return undefined;
  const direct = data.channel_type === 'D';
  const mention = new RegExp(`(^|\\s)@${me.username}\\b`, 'i');
  const mentioned = direct || mention.test(post.message);
  const text = post.message.replace(mention, ' ').replace(/\s+/g, ' ').trim();
  const files = post.metadata?.files ?? [];
  if (text === '' && files.length === 0) return undefined;
  const name = typeof data.sender_name === 'string' ? data.sender_name : undefined;
  return {
    messageId: post.id,
    chat: direct ? `direct:${post.user_id}` : `channel:${post.channel_id}`,
    replyTo: post.root_id ? `${post.channel_id}/${post.root_id}` : post.channel_id,
    sender: post.user_id,
    senderAliases: [post.user_id, ...(name ? [name.startsWith('@') ? name : `@${name}`] : [])],
    text,
    mentioned,
    ...(post.root_id ? { topic: `topic:${post.root_id}` } : {}),
    ...filesOf(files),
  };
}
