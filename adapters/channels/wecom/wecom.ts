import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { generateReqId, WSClient, type WsFrame } from '@wecom/aibot-node-sdk';
import { namedChatOf } from '../chat-kind.js';
import { CHAT_COMMANDS } from '../command-names.js';
import {
  ChannelError,
  type Channel,
  type ChannelCapabilities,
  type ChannelHooks,
  type OutboundFile,
} from '../channel.js';
import { fromWeComMessage, parseWeComTarget, wecomFileOf, wecomMessageSchema } from './events.js';

export interface WeComOptions {
  botId: string;
  secret: string;
  wsUrl: string;
  /** Show "Thinking…" at once, replaced by the answer. */
  thinking: boolean;
}

/** The peer runtime's limit; a stream reply may hold 20,480 bytes, which 2,048 characters stay under in any script. */
export const WECOM_MAX_LENGTH = 2048;
/** WeCom takes a reply to a message as a stream for 6 minutes from the message; later ones are pushed. */
const REPLY_WINDOW_MS = 5 * 60_000 + 30_000;
const CONNECT_TIMEOUT_MS = 30_000;
export const THINKING = 'Thinking…';

/** The SDK logs message bodies and frames: nothing of it here, its errors reach Tern as events. */
const silent = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };

/** A message the bot may still answer in place: its callback's req_id, and the stream opened for it. */
interface Pending {
  /** `single:<userid>` or `group:<chatid>`. */
  chat: string;
  frame: Pick<WsFrame, 'headers'>;
  at: number;
  streamId: string | undefined;
  answered: boolean;
}

/**
 * The SDK rejects with the ack frame (not an Error) when WeCom refuses a reply: WeCom did not take it. A refused reply
 * in place (its window closed) is tried again, and the next try pushes; a refused push is final.
 */
function refused(what: string, error: unknown): ChannelError {
  if (error instanceof Error) return new ChannelError('network', `WeCom ${what}: ${error.message}`);
  const frame = error as { errcode?: number; errmsg?: string };
  const said = `WeCom ${what}: ${frame.errcode ?? '?'} ${frame.errmsg ?? ''}`.trim();
  return new ChannelError('platform', said, { delivered: 'no', retry: what === 'reply' });
}

/**
 * A WeCom (WeChat Work) intelligent bot over its long connection (@wecom/aibot-node-sdk): messages arrive as callbacks
 * on a WebSocket the bot opens; a reply goes as a finished stream on the message's callback while WeCom allows, and as
 * a pushed Markdown message after.
 */
export class WeComChannel implements Channel {
  readonly kind = 'wecom';
  readonly capabilities: ChannelCapabilities = {
    commands: CHAT_COMMANDS,
    streaming: false,
    // A finished reply cannot change: a placeholder is followed by the answer as a new message.
    edits: false,
    maxMessageLength: WECOM_MAX_LENGTH,
  };
  private client: WSClient | undefined;
  /**
   * By message id, the messages the bot may answer in place: each answer goes out on its own message's callback, even
   * when the user wrote again before it was ready.
   */
  private readonly pending = new Map<string, Pending>();
  /** Chats (`single:<userid>`, `group:<chatid>`) by the bare id a tool may name them by. */
  private readonly targets = new Map<string, string>();

  constructor(private readonly options: WeComOptions) {}

  async start(hooks: ChannelHooks): Promise<void> {
    const client = new WSClient({
      botId: this.options.botId,
      secret: this.options.secret,
      wsUrl: this.options.wsUrl,
      logger: silent,
      // A refused secret or a drop goes to the gateway's restart backoff, not the SDK's own retries.
      maxAuthFailureAttempts: 0,
      maxReconnectAttempts: 0,
    });
    this.client = client;
    client.on('message', (frame: WsFrame) => void this.take(frame, hooks));
    await new Promise<void>((resolve, reject) => {
      const fail = (error: ChannelError): void => {
        clearTimeout(timer);
        this.close();
        reject(error);
      };
      const timer = setTimeout(
        () => fail(new ChannelError('network', 'the WeCom long connection did not open within 30 s')),
        CONNECT_TIMEOUT_MS,
      );
      client.once('authenticated', () => {
        clearTimeout(timer);
        client.removeAllListeners('error');
        resolve();
      });
      client.on('error', (error: Error) => {
        const auth = /^Authentication failed/.test(error.message);
        fail(new ChannelError(auth ? 'unauthorized' : 'network', `WeCom refused the connection (${error.message})`));
      });
      client.connect();
    });
    client.on('error', () => {});
    client.once('disconnected', () => {
      if (this.client !== client) return;
      this.close();
      hooks.onFailed(new ChannelError('network', 'the WeCom long connection closed'));
    });
    hooks.onConnected();
  }

  async stop(): Promise<void> {
    this.close();
  }

  /** A user is sent to as `single:<userid>`, a group as `group:<chatid>`. */
  replyToOf(chat: string): string {
    const named = namedChatOf(chat);
    if (!named) return chat;
    return `${named.kind === 'direct' ? 'single' : 'group'}:${named.id}`;
  }

  /**
   * In place of the "Thinking…" stream (or as a new stream) on the message the answer is to, while WeCom takes it;
   * a pushed Markdown message otherwise (a later part, a late answer, a tool's message).
   */
  async send(to: string, text: string): Promise<string> {
    const client = this.connected();
    const target = parseWeComTarget(this.targetOf(to));
    const pending = this.pendingFor(target);
    if (pending && !pending.answered) {
      pending.answered = true;
      const streamId = pending.streamId ?? generateReqId('stream');
      await client.replyStream(pending.frame, streamId, text, true).catch((error: unknown) => {
        throw refused('reply', error);
      });
      return streamId;
    }
    // `chat_type` (1 a one-to-one chat, 2 a group) tells WeCom what the id names; the SDK's type leaves it out.
    const chatType = target.kind === 'group' ? 2 : 1;
    const body = { msgtype: 'markdown', markdown: { content: text }, chat_type: chatType } as const;
    const sent = await client.sendMessage(target.chat, body).catch((error: unknown) => {
      throw refused('push', error);
    });
    return sent.headers.req_id;
  }

  /**
   * The file uploaded over the long connection (in chunks), then pushed to the chat after its caption: images and
   * videos as such, anything else as a file (WeCom plays only AMR recordings as voice).
   */
  async sendFile(to: string, file: OutboundFile): Promise<string> {
    const client = this.connected();
    const replyTo = this.targetOf(to);
    const bytes = await readFile(file.path).catch((error: Error) => {
      throw new ChannelError('platform', `cannot read ${basename(file.path)} to send it (${error.message})`);
    });
    const type = file.kind === 'image' || file.kind === 'video' ? file.kind : 'file';
    const uploaded = await client
      .uploadMedia(bytes, { type, filename: basename(file.path) })
      .catch((error: unknown) => {
        throw refused('upload', error);
      });
    if (file.caption) await this.send(replyTo, file.caption);
    const sent = await client
      .sendMediaMessage(parseWeComTarget(replyTo).chat, type, uploaded.media_id)
      .catch((error: unknown) => {
        throw refused('file', error);
      });
    return sent.headers.req_id;
  }

  /** A picture a user sent: fetched from its address and decrypted with its key (the SDK's `downloadFile`). */
  async download(fileId: string): Promise<Buffer> {
    const { url, aeskey } = wecomFileOf(fileId);
    const file = await this.connected()
      .downloadFile(url, aeskey || undefined)
      .catch((error: Error) => {
        throw new ChannelError('network', `downloading a WeCom file failed (${error.message})`);
      });
    return file.buffer;
  }

  async edit(): Promise<void> {
    throw new ChannelError('platform', 'WeCom cannot edit a sent bot message');
  }

  /**
   * WeCom has no typing indicator: "Thinking…" stands in, as a stream on the message the turn answers. The gateway
   * calls this once it took the message for a turn, so a redelivery it drops opens no stream left unfinished.
   */
  async typing(to: string): Promise<void> {
    const pending = this.pendingFor(parseWeComTarget(this.targetOf(to)));
    if (!this.options.thinking || !this.client || !pending || pending.answered || pending.streamId) return;
    const streamId = generateReqId('stream');
    pending.streamId = streamId;
    await this.client.replyStream(pending.frame, streamId, THINKING, false).catch((error: unknown) => {
      // Without it the answer still comes, as a new stream.
      if (pending.streamId === streamId && !pending.answered) pending.streamId = undefined;
      throw refused('thinking message', error);
    });
  }

  /** A message, remembered with its callback until its answer went out on it or WeCom's window closed. */
  private async take(frame: WsFrame, hooks: ChannelHooks): Promise<void> {
    const parsed = wecomMessageSchema.safeParse(frame.body);
    const message = parsed.success ? fromWeComMessage(parsed.data) : undefined;
    if (!message) return;
    const { kind, chat } = parseWeComTarget(message.replyTo);
    this.targets.set(chat, `${kind}:${chat}`);
    for (const id of this.pending.keys()) if (!this.pendingOf(id)) this.pending.delete(id);
    // A redelivery keeps the first delivery's callback, on which "Thinking…" may already show.
    if (!this.pending.has(message.messageId)) {
      this.pending.set(message.messageId, {
        chat: `${kind}:${chat}`,
        frame: { headers: frame.headers },
        at: Date.now(),
        streamId: undefined,
        answered: false,
      });
    }
    await hooks.onMessage(message);
  }

  /**
   * The message an answer goes out on: its own, named after `#`; for a text to the chat alone (a tool's message), the
   * oldest one there not answered yet, so it shows where "Thinking…" does, before the answer.
   */
  private pendingFor(target: ReturnType<typeof parseWeComTarget>): Pending | undefined {
    if (target.messageId !== undefined) return this.pendingOf(target.messageId);
    const chat = `${target.kind}:${target.chat}`;
    for (const [id, pending] of this.pending)
      if (pending.chat === chat && !pending.answered && this.pendingOf(id)) return pending;
    return undefined;
  }

  /** The message of that id while its callback may still carry the answer. */
  private pendingOf(messageId: string | undefined): Pending | undefined {
    const pending = messageId === undefined ? undefined : this.pending.get(messageId);
    return pending && Date.now() - pending.at < REPLY_WINDOW_MS ? pending : undefined;
  }

  /**
   * `single:<userid>` or `group:<chatid>` (with `#<message id>` for an answer) for what the gateway names: a reply's
   * own target, or the bare id a tool addresses (a group the bot heard from is a group; any other id a user).
   */
  private targetOf(to: string): string {
    if (/^(single|group):/.test(to)) return to;
    return this.targets.get(to) ?? `single:${to}`;
  }

  private connected(): WSClient {
    if (!this.client) throw new ChannelError('network', 'the WeCom channel is not connected');
    return this.client;
  }

  private close(): void {
    const client = this.client;
    this.client = undefined;
    if (!client) return;
    client.removeAllListeners();
    client.disconnect();
  }
}
