import { extname } from 'node:path';
import { readFile } from 'node:fs/promises';
import WebSocket from 'ws';
import * as z from 'zod';
import { CHAT_COMMANDS } from './command-names.js';
import {
  ChannelError,
  type Channel,
  type ChannelCapabilities,
  type ChannelHooks,
  type ChannelMessage,
} from './channel.js';
import { renderMarkdown } from './markdown.js';
import { WHATSAPP_MAX_LENGTH } from './whatsapp-cloud.js';

/**
 * The peer runtime's bridge protocol (`bridge_url`): one WebSocket, JSON frames. In: `{"type":"message","id","from",
 * "chat","content","from_name","media":[paths]}` (media are files on the bridge's machine); out:
 * `{"type":"message","to","content"}`. A chat equal to the sender is a direct chat.
 */
const inboundSchema = z.looseObject({
  type: z.string(),
  id: z.string().optional(),
  from: z.string().optional(),
  chat: z.string().optional(),
  content: z.string().optional(),
  from_name: z.string().optional(),
  media: z.array(z.string()).optional(),
});

const AUDIO = new Set(['.ogg', '.oga', '.opus', '.mp3', '.m4a', '.wav', '.aac']);
const IMAGE = new Set(['.jpg', '.jpeg', '.png', '.webp', '.gif']);
const VIDEO = new Set(['.mp4', '.3gp', '.mov']);

/** A bridge frame as a channel message; media are the bridge's file paths, read by `download`. */
export function fromBridgeFrame(
  frame: z.infer<typeof inboundSchema>,
  counter: () => number,
): ChannelMessage | undefined {
  if (frame.type !== 'message' || !frame.from) return undefined;
  const chat = frame.chat ?? frame.from;
  const media = frame.media ?? [];
  const audio = media.filter((p) => AUDIO.has(extname(p).toLowerCase()));
  const files = media.filter((p) => !AUDIO.has(extname(p).toLowerCase()));
  return {
    messageId: frame.id ?? `${chat}:${counter()}`,
    chat: chat === frame.from ? `direct:${chat}` : `group:${chat}`,
    replyTo: chat,
    sender: frame.from,
    senderAliases: [frame.from, ...(frame.from_name ? [frame.from_name] : [])],
    text: frame.content ?? '',
    mentioned: false,
    ...(audio.length
      ? { audio: audio.map((p) => ({ fileId: p, mime: 'audio/ogg', name: `voice${extname(p)}` })) }
      : {}),
    ...(files.length
      ? {
          media: files.map((p) => {
            const ext = extname(p).toLowerCase();
            const kind = IMAGE.has(ext) ? ('image' as const) : VIDEO.has(ext) ? ('video' as const) : ('file' as const);
            return { kind, fileId: p, mime: 'application/octet-stream', name: `file${ext}` };
          }),
        }
      : {}),
  };
}

/** WhatsApp through an external bridge that holds the linked device (the peer runtime's `bridge_url`). */
export class WhatsAppBridgeChannel implements Channel {
  readonly kind = 'whatsapp';
  readonly capabilities: ChannelCapabilities = {
    commands: CHAT_COMMANDS,
    streaming: false,
    edits: false,
    maxMessageLength: WHATSAPP_MAX_LENGTH,
  };
  private socket: WebSocket | undefined;
  private sent = 0;
  private unnamed = 0;

  constructor(private readonly bridgeUrl: string) {}

  async start(hooks: ChannelHooks): Promise<void> {
    const socket = new WebSocket(this.bridgeUrl);
    this.socket = socket;
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', (error) =>
        reject(new ChannelError('network', `cannot reach the WhatsApp bridge at ${this.bridgeUrl} (${error.message})`)),
      );
    });
    socket.on('message', (raw) => {
      let frame: unknown;
      try {
        frame = JSON.parse(raw.toString());
      } catch {
        return;
      }
      const parsed = inboundSchema.safeParse(frame);
      const message = parsed.success ? fromBridgeFrame(parsed.data, () => ++this.unnamed) : undefined;
      if (message) void hooks.onMessage(message);
    });
    socket.on('close', () => {
      if (this.socket === socket)
        hooks.onFailed(new ChannelError('network', 'the WhatsApp bridge closed the connection'));
    });
    socket.on('error', () => undefined);
    hooks.onConnected();
  }

  async stop(): Promise<void> {
    const socket = this.socket;
    this.socket = undefined;
    socket?.close();
  }

  /** The bridge names no message: the id is this channel's own count. */
  async send(replyTo: string, text: string): Promise<string> {
    const socket = this.socket;
    if (!socket || socket.readyState !== WebSocket.OPEN)
      throw new ChannelError('network', 'the WhatsApp bridge is not connected');
    const frame = JSON.stringify({ type: 'message', to: replyTo, content: renderMarkdown(text, 'whatsapp') });
    await new Promise<void>((resolve, reject) =>
      socket.send(frame, (error) => (error ? reject(new ChannelError('network', error.message)) : resolve())),
    );
    return `bridge-${++this.sent}`;
  }

  async edit(): Promise<void> {
    throw new ChannelError('platform', 'the WhatsApp bridge cannot edit a message');
  }

  /** The bridge protocol has no typing indicator. */
  async typing(): Promise<void> {}

  /** Media are files on the bridge's machine, which is this one in the peer's setups. */
  async download(fileId: string): Promise<Buffer> {
    return readFile(fileId).catch((error: Error) => {
      throw new ChannelError('platform', `cannot read the bridge's file ${fileId} (${error.message})`);
    });
  }
}
