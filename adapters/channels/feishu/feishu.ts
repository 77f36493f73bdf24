import { createReadStream } from 'node:fs';
import { basename } from 'node:path';
import type { Readable } from 'node:stream';
import * as lark from '@larksuiteoapi/node-sdk';
import { CHAT_COMMANDS } from '../command-names.js';
import {
  ChannelError,
  type Channel,
  type ChannelCapabilities,
  type ChannelHooks,
  type OutboundFile,
} from '../channel.js';
import { feishuMessageEventSchema, fromFeishuEvent, MESSAGE_EVENT } from './events.js';

export interface FeishuOptions {
  appId: string;
  appSecret: string;
  encryptKey: string;
  verificationToken: string;
  /** `https://open.feishu.cn`, `https://open.larksuite.com`, or a test server. */
  domain: string;
  /** Emoji types to react with when a message is taken; empty: no reaction. */
  reactions: readonly string[];
}

/**
 * One card holds about 30 KB of JSON: 8,000 characters stay under it even in CJK (3 bytes each). A text message may
 * carry more, but a reply is split before it reaches either.
 */
export const FEISHU_MAX_LENGTH = 8_000;
const MAX_DOWNLOAD_BYTES = 20 * 1024 * 1024;
/** How long the long connection may take to open before the start counts as failed. */
const CONNECT_TIMEOUT_MS = 30_000;
/** Feishu's codes for a refused app or token: not a card problem, so no plain-text retry. */
const AUTH_CODES = new Set([99991661, 99991663, 99991664, 99991668, 99991671, 10003, 10014]);
const RATE_LIMITED_CODE = 99991400;

/** The SDK logs request errors whole (their headers carry the tenant token) and events' contents: none of it here. */
const silent = { error: () => {}, warn: () => {}, info: () => {}, debug: () => {}, trace: () => {} };

/**
 * The SDK's default token cache is process-wide by App ID: a channel's own keeps a refused or restarted channel from
 * reusing another's token, and drops a token when Feishu says it is no longer valid.
 */
type CacheKey = Parameters<lark.Cache['get']>[0];

class TokenCache implements lark.Cache {
  private readonly values = new Map<CacheKey, { value: unknown; until: number }>();

  async set(key: CacheKey, value: unknown, expire?: number): Promise<boolean> {
    this.values.set(key, { value, until: expire ?? Number.POSITIVE_INFINITY });
    return true;
  }

  async get(key: CacheKey): Promise<unknown> {
    const entry = this.values.get(key);
    return entry && Date.now() < entry.until ? entry.value : undefined;
  }

  clear(): void {
    this.values.clear();
  }
}

interface Answer {
  code?: number;
  msg?: string;
  data?: Record<string, unknown>;
}

/**
 * Replies go to the chat a message came from (`oc_…`); a send a tool or a job addresses to a person names their
 * open_id (`direct:ou_…`), which Feishu takes as the receiver of a one-to-one message.
 */
function receiverType(receiver: string): 'chat_id' | 'open_id' | 'union_id' {
  if (receiver.startsWith('ou_')) return 'open_id';
  if (receiver.startsWith('on_')) return 'union_id';
  return 'chat_id';
}

/** `<chat_id>#<message_id>`: an answer in the topic thread of that message; a bare receiver: the chat itself. */
function threadOf(replyTo: string): { receiver: string; inReplyTo?: string } {
  const at = replyTo.indexOf('#');
  return at < 0 ? { receiver: replyTo } : { receiver: replyTo.slice(0, at), inReplyTo: replyTo.slice(at + 1) };
}

/** A card with one Markdown element: the form of a reply that can be edited (patched) while it streams. */
function card(text: string): string {
  return JSON.stringify({
    schema: '2.0',
    config: { update_multi: true },
    body: { elements: [{ tag: 'markdown', content: text }] },
  });
}

/**
 * How long Feishu asked to wait: a call over its frequency limit is answered 429 (400 on some older APIs) with code
 * 99991400 and the seconds until the limit resets in `x-ogw-ratelimit-reset`.
 */
function retryAfterMs(status: number | undefined, code: number, headers: Record<string, unknown> | undefined) {
  if (status !== 429 && code !== RATE_LIMITED_CODE) return undefined;
  const seconds = Number(headers?.['x-ogw-ratelimit-reset']);
  return Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : 1000;
}

/** An SDK call's outcome: its answer when `code` is 0, else a `ChannelError` with Feishu's code and message only. */
async function answered(what: string, call: Promise<unknown>): Promise<Answer> {
  let answer: Answer;
  try {
    answer = ((await call) ?? {}) as Answer;
  } catch (error) {
    // axios errors carry the request (the tenant token): only the platform's answer is kept.
    const response = (error as { response?: { status?: number; data?: Answer; headers?: Record<string, unknown> } })
      .response;
    if (!response) throw new ChannelError('network', `cannot reach Feishu (${what}: ${(error as Error).message})`);
    answer = {
      code: response.data?.code ?? response.status ?? 0,
      msg: response.data?.msg ?? `HTTP ${response.status}`,
    };
    if (answer.code === 0) answer.code = response.status;
    const wait = retryAfterMs(response.status, answer.code ?? 0, response.headers);
    if (wait !== undefined)
      throw new ChannelError('rate_limited', `Feishu ${what}: ${answer.code} ${answer.msg ?? ''}`.trim(), {
        delivered: 'no',
        retry: true,
        retryAfterMs: wait,
      });
  }
  if (!answer.code) return answer;
  const code = answer.code ?? 0;
  throw new ChannelError(
    AUTH_CODES.has(code) ? 'unauthorized' : 'platform',
    `Feishu ${what}: ${code} ${answer.msg ?? ''}`.trim(),
  );
}

async function collect(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    size += (chunk as Buffer).length;
    if (size > MAX_DOWNLOAD_BYTES) {
      stream.destroy();
      throw new ChannelError('platform', `a Feishu file is larger than ${MAX_DOWNLOAD_BYTES / 1024 / 1024} MB`);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/**
 * Feishu / Lark through the official SDK: events over its long connection (a WebSocket the app opens, no public URL),
 * replies as Markdown cards (patched while a reply streams; plain text when a card is refused), a reaction on each
 * message taken, voice downloaded for transcription.
 */
export class FeishuChannel implements Channel {
  readonly kind = 'feishu';
  readonly capabilities: ChannelCapabilities = {
    commands: CHAT_COMMANDS,
    streaming: true,
    maxMessageLength: FEISHU_MAX_LENGTH,
  };
  private readonly client: lark.Client;
  private readonly tokens = new TokenCache();
  private ws: lark.WSClient | undefined;
  private botOpenId: string | undefined;
  /** Messages sent as plain text (a refused card): those cannot be patched, so their edits go as new messages. */
  private readonly plain = new Set<string>();

  constructor(private readonly options: FeishuOptions) {
    this.client = new lark.Client({
      appId: options.appId,
      appSecret: options.appSecret,
      domain: options.domain,
      logger: silent,
      loggerLevel: lark.LoggerLevel.error,
      cache: this.tokens,
    });
  }

  async start(hooks: ChannelHooks): Promise<void> {
    // The bot's own identity first: it checks the App ID and Secret (a refusal says so) and tells its @-mentions.
    const info = await this.call('bot info', this.client.request({ method: 'GET', url: '/open-apis/bot/v3/info' }));
    const bot = (info as { bot?: { open_id?: string } }).bot;
    this.botOpenId = bot?.open_id;
    const dispatcher = new lark.EventDispatcher({
      encryptKey: this.options.encryptKey,
      verificationToken: this.options.verificationToken,
      logger: silent,
      loggerLevel: lark.LoggerLevel.error,
    }).register({
      [MESSAGE_EVENT]: (data: unknown) => {
        // A closed client of the SDK still makes one more connection: what reaches it is left unacknowledged, so
        // Feishu delivers it again on the live connection.
        if (this.ws !== ws) throw new ChannelError('network', 'this Feishu long connection was closed');
        return this.take(data, hooks);
      },
    });
    let ws: lark.WSClient | undefined;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.closeSocket();
        reject(
          new ChannelError('network', `the Feishu long connection did not open within ${CONNECT_TIMEOUT_MS / 1000} s`),
        );
      }, CONNECT_TIMEOUT_MS);
      ws = new lark.WSClient({
        appId: this.options.appId,
        appSecret: this.options.appSecret,
        domain: this.options.domain,
        logger: silent,
        loggerLevel: lark.LoggerLevel.error,
        onReady: () => {
          clearTimeout(timer);
          resolve();
        },
        onError: (error: Error) => {
          clearTimeout(timer);
          this.closeSocket();
          reject(new ChannelError('unauthorized', `Feishu refused the long connection (${error.message})`));
        },
        // A drop goes to the gateway's restart backoff, as every channel's does, instead of the SDK's own timing.
        onReconnecting: () => {
          this.closeSocket();
          hooks.onFailed(new ChannelError('network', 'the Feishu long connection closed'));
        },
      });
      this.ws = ws;
      void ws.start({ eventDispatcher: dispatcher });
    });
    hooks.onConnected();
  }

  async stop(): Promise<void> {
    this.closeSocket();
  }

  /** Markdown in a card; a refused card (a table too many, a bad element) goes again as plain text. */
  async send(replyTo: string, text: string): Promise<string> {
    try {
      return await this.create(replyTo, 'interactive', card(text));
    } catch (error) {
      if (!(error instanceof ChannelError) || error.code !== 'platform') throw error;
      const id = await this.create(replyTo, 'text', JSON.stringify({ text }));
      this.plain.add(id);
      return id;
    }
  }

  async edit(_replyTo: string, messageId: string, text: string): Promise<void> {
    if (this.plain.has(messageId)) throw new ChannelError('platform', 'a plain-text Feishu message cannot be edited');
    await this.call(
      'edit',
      this.client.im.v1.message.patch({ path: { message_id: messageId }, data: { content: card(text) } }),
    );
  }

  /** Feishu shows bots no typing indicator: the reaction on the message says it was taken. */
  async typing(): Promise<void> {}

  async sendFile(replyTo: string, file: OutboundFile): Promise<string> {
    const name = basename(file.path);
    if (file.kind === 'image') {
      const uploaded = await this.call(
        'image upload',
        this.client.im.v1.image.create({
          data: { image_type: 'message', image: createReadStream(file.path) },
        }),
      );
      const key = (uploaded as { image_key?: string }).image_key ?? uploaded.data?.image_key;
      if (typeof key !== 'string') throw new ChannelError('platform', 'Feishu gave no image_key');
      return this.captioned(replyTo, await this.create(replyTo, 'image', JSON.stringify({ image_key: key })), file);
    }
    const uploaded = await this.call(
      'file upload',
      this.client.im.v1.file.create({
        data: { file_type: 'stream', file_name: name, file: createReadStream(file.path) },
      }),
    );
    const key = (uploaded as { file_key?: string }).file_key ?? uploaded.data?.file_key;
    if (typeof key !== 'string') throw new ChannelError('platform', 'Feishu gave no file_key');
    return this.captioned(replyTo, await this.create(replyTo, 'file', JSON.stringify({ file_key: key })), file);
  }

  /** A Feishu file or picture message has no text: its caption follows it, as on every platform without captions. */
  private async captioned(replyTo: string, id: string, file: OutboundFile): Promise<string> {
    if (file.caption) await this.send(replyTo, file.caption);
    return id;
  }

  /** A file a user sent (`<message_id>/<file_key>`) or a picture (`image/<message_id>/<image_key>`). */
  async download(fileId: string): Promise<Buffer> {
    const parts = fileId.split('/');
    const type = parts.length === 3 ? parts.shift() : 'file';
    const [messageId, fileKey] = parts;
    let resource: { getReadableStream(): Readable };
    try {
      resource = await this.client.im.v1.messageResource.get({
        path: { message_id: messageId ?? '', file_key: fileKey ?? '' },
        params: { type: type ?? 'file' },
      });
    } catch (error) {
      await this.call('download', Promise.reject(error));
      throw error;
    }
    return collect(resource.getReadableStream());
  }

  /** An SDK call through `answered`; a refused token is dropped, so the next call fetches a new one. */
  private async call(what: string, request: Promise<unknown>): Promise<Answer> {
    return answered(what, request).catch((error: unknown) => {
      if (error instanceof ChannelError && error.code === 'unauthorized') this.tokens.clear();
      throw error;
    });
  }

  /** A new message in the chat, or in a topic thread as a reply to a message there (`reply_in_thread`). */
  private async create(replyTo: string, type: string, content: string): Promise<string> {
    const { receiver, inReplyTo } = threadOf(replyTo);
    const sent = await this.call(
      'send',
      inReplyTo
        ? this.client.im.v1.message.reply({
            path: { message_id: inReplyTo },
            data: { msg_type: type, content, reply_in_thread: true },
          })
        : this.client.im.v1.message.create({
            params: { receive_id_type: receiverType(receiver) },
            data: { receive_id: receiver, msg_type: type, content },
          }),
    );
    const id = sent.data?.message_id;
    if (typeof id !== 'string') throw new ChannelError('platform', 'Feishu gave no message_id');
    return id;
  }

  /**
   * A message event: kept, then answered (the SDK acknowledges when this returns; a throw makes Feishu deliver it
   * again), then a reaction on it.
   */
  private async take(data: unknown, hooks: ChannelHooks): Promise<void> {
    const parsed = feishuMessageEventSchema.safeParse(data);
    const message = parsed.success ? fromFeishuEvent(parsed.data, this.botOpenId) : undefined;
    if (!message) return;
    await hooks.onMessage(message);
    const emoji = this.options.reactions[Math.floor(Math.random() * this.options.reactions.length)];
    if (!emoji) return;
    // Best effort: a reaction refused is no reason to fail the message.
    this.client.im.v1.messageReaction
      .create({ path: { message_id: message.messageId }, data: { reaction_type: { emoji_type: emoji } } })
      .catch(() => {});
  }

  private closeSocket(): void {
    const ws = this.ws;
    this.ws = undefined;
    ws?.close({ force: true });
  }
}
