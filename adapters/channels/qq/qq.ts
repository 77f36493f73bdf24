import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import WebSocket from 'ws';
import { sendForBytes } from '../../http/client.js';
import { namedChatOf } from '../chat-kind.js';
import { CHAT_COMMANDS } from '../command-names.js';
import {
  ChannelError,
  type Channel,
  type ChannelCapabilities,
  type ChannelHooks,
  type OutboundFile,
} from '../channel.js';
import { renderMarkdown } from '../markdown.js';
import { fromQqMessage, QQ_INTENTS, qqFrameSchema, qqMessageSchema } from './events.js';
import { QqApi, type QqApiOptions } from './qq-api.js';

export interface QqOptions extends QqApiOptions {
  maxMessageLength: number;
  sendMarkdown: boolean;
}

/** The most a user's file may be. */
const MAX_DOWNLOAD_BYTES = 20 * 1024 * 1024;
/** QQ takes a passive reply (one carrying the user's `msg_id`) this long after the message; later ones go active. */
const PASSIVE_MS = 5 * 60_000;
/** Close codes that mean the bot cannot log in as it is (bad token, banned, offline): not retried quickly. */
const REFUSED = new Set([4004, 4914, 4915]);

interface Inbound {
  /** The chat it came in, as `replyToOf` names it (`c2c:<openid>`). */
  chat: string;
  at: number;
  /** QQ drops a second message with the same `msg_id` and `msg_seq`: each part counts up. */
  seq: number;
}

/** `c2c:<openid>#<msg_id>` (an answer to that message) or `c2c:<openid>` (a message to the chat) split. */
function targetOf(replyTo: string): { chat: string; msgId?: string } {
  const hash = replyTo.indexOf('#');
  return hash < 0 ? { chat: replyTo } : { chat: replyTo.slice(0, hash), msgId: replyTo.slice(hash + 1) };
}

/**
 * `c2c:<openid>` → `/v2/users/<openid>`; `group:<openid>` → `/v2/groups/<openid>`; `channel:<id>` → `/channels/<id>`.
 */
function pathOf(replyTo: string): { kind: 'c2c' | 'group' | 'channel'; path: string } {
  const { chat } = targetOf(replyTo);
  const at = chat.indexOf(':');
  const kind = chat.slice(0, at);
  const id = encodeURIComponent(chat.slice(at + 1));
  if (kind === 'group') return { kind, path: `/v2/groups/${id}` };
  if (kind === 'channel') return { kind, path: `/channels/${id}` };
  return { kind: 'c2c', path: `/v2/users/${id}` };
}

/**
 * A QQ official bot (QQ Open Platform, AppID + AppSecret): events over the bot gateway's WebSocket (hello, identify,
 * heartbeats, dispatches), replies through the OpenAPI as passive replies to the user's message while QQ allows.
 * Private chats (C2C), group @-messages and guild channel @-messages.
 */
export class QqChannel implements Channel {
  readonly kind = 'qq';
  readonly capabilities: ChannelCapabilities;
  private readonly api: QqApi;
  private socket: WebSocket | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  private stopping = false;
  /** The users' messages QQ may still take passive replies to, by `msg_id`, oldest first. */
  private readonly inbound = new Map<string, Inbound>();

  constructor(private readonly options: QqOptions) {
    this.api = new QqApi(options);
    this.capabilities = {
      commands: CHAT_COMMANDS,
      streaming: false,
      // QQ can only recall a message: a placeholder stays and the reply follows it.
      edits: false,
      maxMessageLength: options.maxMessageLength,
      reportsWrites: true,
    };
  }

  async start(hooks: ChannelHooks): Promise<void> {
    this.stopping = false;
    const token = await this.api.accessToken();
    const gateway = await this.api.call('GET', '/gateway');
    if (typeof gateway.url !== 'string') throw new ChannelError('platform', 'QQ /gateway gave no url');
    const socket = new WebSocket(gateway.url, { handshakeTimeout: 15_000 });
    this.socket = socket;
    let seq: number | null = null;
    let connected = false;
    await new Promise<void>((resolve, reject) => {
      let failed = false;
      const fail = (error: ChannelError): void => {
        if (!connected) return reject(error);
        if (failed || this.stopping) return;
        failed = true;
        hooks.onFailed(error);
      };
      socket.on('error', (error: Error & { code?: string }) =>
        fail(new ChannelError('network', `QQ gateway: ${error.code ?? error.message}`)),
      );
      socket.on('close', (code) => {
        clearInterval(this.heartbeat);
        fail(
          new ChannelError(
            REFUSED.has(code) ? 'unauthorized' : 'network',
            `the QQ gateway closed the connection (code ${code})`,
          ),
        );
      });
      socket.on('message', (raw) => {
        let frame;
        try {
          frame = qqFrameSchema.parse(JSON.parse(raw.toString()));
        } catch {
          return;
        }
        if (typeof frame.s === 'number') seq = frame.s;
        switch (frame.op) {
          case 10: {
            const interval = Number(
              (frame.d as { heartbeat_interval?: unknown } | undefined)?.heartbeat_interval ?? 40_000,
            );
            clearInterval(this.heartbeat);
            this.heartbeat = setInterval(() => socket.send(JSON.stringify({ op: 1, d: seq })), interval);
            const intents = QQ_INTENTS.GROUP_AND_C2C | QQ_INTENTS.GUILD_AT;
            socket.send(
              JSON.stringify({ op: 2, d: { token: `QQBot ${token}`, intents, shard: [0, 1], properties: {} } }),
            );
            return;
          }
          case 7:
            return fail(new ChannelError('network', 'the QQ gateway asked for a reconnect'));
          case 9:
            socket.terminate();
            return fail(new ChannelError('unauthorized', 'the QQ gateway refused the session (invalid session)'));
          case 0:
            if (frame.t === 'READY') {
              connected = true;
              resolve();
              return hooks.onConnected();
            }
            return this.dispatch(frame.t ?? '', frame.d, hooks);
        }
      });
    }).catch((error: unknown) => {
      clearInterval(this.heartbeat);
      socket.terminate();
      throw error;
    });
  }

  async stop(): Promise<void> {
    this.stopping = true;
    clearInterval(this.heartbeat);
    const socket = this.socket;
    this.socket = undefined;
    if (socket && socket.readyState !== WebSocket.CLOSED) socket.terminate();
  }

  /**
   * A user's chat is reached through `c2c:<openid>`, a group's through `group:`, a guild channel's through `channel:`.
   */
  replyToOf(chat: string): string {
    const named = namedChatOf(chat);
    if (!named) return chat.includes(':') ? chat : `c2c:${chat}`;
    return `${named.kind === 'direct' ? 'c2c' : named.kind}:${named.id}`;
  }

  async send(replyTo: string, text: string): Promise<string> {
    const body = this.options.sendMarkdown
      ? { msg_type: 2, markdown: { content: text } }
      : { msg_type: 0, content: renderMarkdown(text, 'plain') };
    return this.post(replyTo, body);
  }

  async edit(): Promise<void> {
    throw new ChannelError('platform', 'QQ cannot edit a sent message');
  }

  /** Uploads the file (base64) to the chat, then sends it as a media message with the caption (not in guilds). */
  async sendFile(replyTo: string, file: OutboundFile): Promise<string> {
    const { kind, path } = pathOf(replyTo);
    if (kind === 'channel') throw new ChannelError('platform', 'a QQ guild channel takes files only as public URLs');
    const bytes = await readFile(file.path).catch((error: Error) => {
      throw new ChannelError('platform', `cannot read ${basename(file.path)} to send it (${error.message})`);
    });
    const fileType = file.kind === 'image' ? 1 : file.kind === 'video' ? 2 : file.kind === 'audio' ? 3 : 4;
    const uploaded = await this.api.call('POST', `${path}/files`, {
      file_type: fileType,
      file_data: bytes.toString('base64'),
      file_name: basename(file.path),
      srv_send_msg: false,
    });
    const content = file.caption ? renderMarkdown(file.caption, 'plain') : ' ';
    return this.post(replyTo, { msg_type: 7, content, media: { file_info: uploaded.file_info } });
  }

  /** "Typing…" in private chats (an input notice tied to the user's message). */
  async typing(replyTo: string): Promise<void> {
    const { kind } = pathOf(replyTo);
    if (kind !== 'c2c' || !this.fresh(replyTo)) return;
    await this.post(replyTo, { msg_type: 6, input_notify: { input_type: 1, input_second: 60 } }).catch(() => undefined);
  }

  async download(fileId: string): Promise<Buffer> {
    const answer = await sendForBytes({ maxAnswerBytes: MAX_DOWNLOAD_BYTES }, { url: fileId }).catch((error: Error) => {
      throw new ChannelError('network', `downloading a QQ file failed (${error.message})`);
    });
    if (answer.status >= 300)
      throw new ChannelError('platform', `downloading a QQ file failed (HTTP ${answer.status})`);
    return answer.bytes;
  }

  /**
   * A message to the chat, as a passive reply while QQ takes one: an answer to the message it answers (named after
   * `#`), never to a later one the user wrote meanwhile; a message to the chat alone to the user's latest.
   */
  private async post(replyTo: string, body: Record<string, unknown>): Promise<string> {
    const { path } = pathOf(replyTo);
    const fresh = this.fresh(replyTo);
    const passive = fresh ? { msg_id: fresh[0], msg_seq: ++fresh[1].seq } : {};
    const sent = await this.api.call('POST', `${path}/messages`, { ...body, ...passive });
    return typeof sent.id === 'string' ? sent.id : String(sent.id ?? '');
  }

  /** The user's message a send to `replyTo` answers passively (its `msg_id` and state), while QQ takes one. */
  private fresh(replyTo: string): [string, Inbound] | undefined {
    const { chat, msgId } = targetOf(replyTo);
    const live = (entry: [string, Inbound]): boolean => Date.now() - entry[1].at < PASSIVE_MS;
    if (msgId !== undefined) {
      const inbound = this.inbound.get(msgId);
      return inbound && live([msgId, inbound]) ? [msgId, inbound] : undefined;
    }
    return [...this.inbound].findLast((entry) => entry[1].chat === chat && live(entry));
  }

  private dispatch(type: string, data: unknown, hooks: ChannelHooks): void {
    const parsed = qqMessageSchema.safeParse(data);
    if (!parsed.success) return;
    const message = fromQqMessage(type, parsed.data);
    if (!message) return;
    for (const [id, inbound] of this.inbound) if (Date.now() - inbound.at >= PASSIVE_MS) this.inbound.delete(id);
    this.inbound.set(parsed.data.id, { chat: targetOf(message.replyTo).chat, at: Date.now(), seq: 0 });
    void hooks.onMessage(message);
  }
}
