import { randomUUID } from 'node:crypto';
import type { ChannelMessage } from '../channel.js';
import { frameMediaSchema, type FrameMedia, type ServerFrame } from './frames.js';

/** The peer runtime's sender for everything a Pico server sends: `allow_from: ["pico-remote"]` admits every session. */
export const PICO_REMOTE = 'pico-remote';

/** A file a server sent inline, decoded: `download` hands the bytes to the gateway before the turn. */
export interface InlineFile {
  fileId: string;
  bytes: Buffer;
}

type Item = FrameMedia | string | { url?: string | undefined; data_url?: string | undefined };

const DATA_URL = /^data:([\w.+-]+\/[\w.+-]+)?((?:;[^,;]*)*?)(;base64)?,(.*)$/s;

/** A `data:` URL's type and bytes; undefined for one that does not decode. */
function decoded(url: string): { mime: string; bytes: Buffer } | undefined {
  const parts = DATA_URL.exec(url);
  if (!parts) return undefined;
  const mime = parts[1] ?? 'application/octet-stream';
  try {
    const bytes = parts[3] ? Buffer.from(parts[4]!, 'base64') : Buffer.from(decodeURIComponent(parts[4]!), 'utf8');
    return { mime, bytes };
  } catch {
    return undefined;
  }
}

/** A media item's `data:` URL and what it says of itself; an item that is no `data:` URL is not carried. */
function inline(item: Item): { url: string; kind?: FrameMedia['kind']; name?: string } | undefined {
  if (typeof item === 'string') return item.trim().startsWith('data:') ? { url: item.trim() } : undefined;
  const tern = frameMediaSchema.safeParse(item);
  const url = (tern.success ? tern.data.url : 'data_url' in item ? (item.data_url ?? item.url) : item.url)?.trim();
  if (!url?.startsWith('data:')) return undefined;
  return tern.success ? { url, kind: tern.data.kind, name: tern.data.name } : { url };
}

const kindOf = (mime: string): FrameMedia['kind'] =>
  mime.startsWith('image/')
    ? 'image'
    : mime.startsWith('audio/')
      ? 'audio'
      : mime.startsWith('video/')
        ? 'video'
        : 'file';

const EXTENSIONS: Record<string, string> = { image: 'png', audio: 'ogg', video: 'mp4', file: 'bin' };

/**
 * A server's `message.create` or `media.create` as the message of a user in the session it names (else `session`):
 * the peer's client reads these as what its user says. Reasoning the server marks as a thought is no message.
 * Inline files (`data:` URLs, Tern's or the peer's media items) become media, decoded into `files`.
 */
export function fromServerFrame(
  frame: ServerFrame,
  session: string,
  maxFileBytes: number,
): { message: ChannelMessage; files: InlineFile[] } | undefined {
  if (frame.type !== 'message.create' && frame.type !== 'media.create') return undefined;
  const { payload } = frame;
  if (payload.kind?.trim().toLowerCase() === 'thought' || payload.thought === true) return undefined;
  const chatSession = frame.session_id ?? session;
  const messageId = `${chatSession}:${frame.id ?? payload.message_id ?? randomUUID()}`;
  const items: Item[] = typeof payload.media === 'string' ? [payload.media] : (payload.media ?? []);
  const files: InlineFile[] = [];
  const audio: NonNullable<ChannelMessage['audio']> = [];
  const media: NonNullable<ChannelMessage['media']> = [];
  for (const item of items) {
    const found = inline(item);
    const file = found && decoded(found.url);
    if (!found || !file || file.bytes.length > maxFileBytes) continue;
    const { mime, bytes } = file;
    const kind = found.kind ?? kindOf(mime);
    const fileId = `${messageId}#${files.length}`;
    const name = found.name ?? `${kind}-${files.length + 1}.${EXTENSIONS[kind]}`;
    files.push({ fileId, bytes });
    if (kind === 'audio') audio.push({ fileId, mime, name });
    else media.push({ kind, fileId, mime, name });
  }
  const text = (payload.content ?? '').trim();
  if (text === '' && files.length === 0) return undefined;
  return {
    message: {
      messageId,
      chat: `direct:${chatSession}`,
      replyTo: chatSession,
      sender: chatSession,
      senderAliases: [chatSession, PICO_REMOTE],
      text,
      // A session is a one-to-one chat with the bot: everything in it is addressed to the bot.
      mentioned: true,
      ...(audio.length > 0 ? { audio } : {}),
      ...(media.length > 0 ? { media } : {}),
    },
    files,
  };
}
