import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import WebSocket from 'ws';
import { closeSocket } from '../close-socket.js';
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
import { fromOneBotMessage, onebotAnswerSchema, onebotMessageSchema, type OneBotAnswer } from './events.js';

export interface OneBotOptions {
  wsUrl: string;
  accessToken?: string;
  /** How long an action may wait for its answer. */
  callTimeoutMs?: number;
  /** Silence on the socket (no frame, no pong) after which the connection counts as lost. */
  stallMs?: number;
}

/** QQ shows at most about 4,500 characters in one message; replies are split before that. */
export const ONEBOT_MAX_LENGTH = 4000;
/** A picture or recording a user sent is at most this large. */
const MAX_DOWNLOAD_BYTES = 20 * 1024 * 1024;

interface Pending {
  resolve(answer: OneBotAnswer): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

/** `private:<user>` or `group:<group>` as the action and the id it takes. */
function target(replyTo: string): {
  action: 'send_private_msg' | 'send_group_msg';
  params: Record<string, number | string>;
} {
  const [kind, raw = ''] = replyTo.includes(':')
    ? [replyTo.slice(0, replyTo.indexOf(':')), replyTo.slice(replyTo.indexOf(':') + 1)]
    : ['private', replyTo];
  const id = /^\d+$/.test(raw) ? Number(raw) : raw;
  if (kind === 'group') return { action: 'send_group_msg', params: { group_id: id } };
  return { action: 'send_private_msg', params: { user_id: id } };
}

/**
 * QQ through a OneBot v11 implementation (NapCat, Lagrange) over its forward WebSocket: events arrive as JSON frames,
 * actions go out as `{action, params, echo}` and are answered with the same `echo`. One instance per connection.
 */
export class OneBotChannel implements Channel {
  readonly kind = 'onebot';
  readonly capabilities: ChannelCapabilities = {
    commands: CHAT_COMMANDS,
    streaming: false,
    // OneBot v11 can only recall a message: a placeholder stays and the reply follows it.
    edits: false,
    maxMessageLength: ONEBOT_MAX_LENGTH,
  };
  private socket: WebSocket | undefined;
  private readonly pending = new Map<string, Pending>();
  private nextEcho = 1;
  private stopping = false;
  private watchdog: NodeJS.Timeout | undefined;

  constructor(private readonly options: OneBotOptions) {}

  async start(hooks: ChannelHooks): Promise<void> {
    this.stopping = false;
    let selfId = '';
    let connected = false;
    // Events that come before the bot knows its own id wait for it (mentions are told by that id).
    const early: unknown[] = [];
    const take = (frame: unknown): void => {
      const event = onebotMessageSchema.safeParse(frame);
      if (!event.success) return;
      const message = fromOneBotMessage(event.data, selfId);
      if (message) void hooks.onMessage(message);
    };
    const socket = await this.open((raw) => {
      this.alive();
      let frame: unknown;
      try {
        frame = JSON.parse(raw.toString());
      } catch {
        return;
      }
      const answer = onebotAnswerSchema.safeParse(frame);
      if (answer.success) return this.settle(answer.data);
      if (selfId === '') early.push(frame);
      else take(frame);
    });
    this.socket = socket;
    socket.on('pong', () => this.alive());
    socket.on('close', (code) => {
      this.failPending(new ChannelError('network', `the OneBot connection closed (code ${code})`));
      clearTimeout(this.watchdog);
      if (connected && !this.stopping)
        hooks.onFailed(new ChannelError('network', `the OneBot connection closed (code ${code})`));
    });
    const login = await this.call('get_login_info', {}).catch((error: unknown) => {
      socket.terminate();
      throw error;
    });
    selfId = String((login.data as { user_id?: unknown } | undefined)?.user_id ?? '');
    if (selfId === '') {
      socket.terminate();
      throw new ChannelError('platform', 'OneBot get_login_info gave no user_id');
    }
    this.alive();
    connected = true;
    hooks.onConnected();
    for (const frame of early.splice(0)) take(frame);
  }

  async stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.watchdog);
    const socket = this.socket;
    this.socket = undefined;
    await closeSocket(socket);
  }

  /** A user is sent to as `private:<qq>`, a group as `group:<id>`. */
  replyToOf(chat: string): string {
    const named = namedChatOf(chat);
    if (!named) return chat;
    return `${named.kind === 'direct' ? 'private' : 'group'}:${named.id}`;
  }

  async send(replyTo: string, text: string): Promise<string> {
    // QQ shows text as it is: Markdown is reduced to its words.
    return this.sendSegments(replyTo, [{ type: 'text', data: { text: renderMarkdown(text, 'plain') } }]);
  }

  async edit(): Promise<void> {
    throw new ChannelError('platform', 'OneBot cannot edit a sent message');
  }

  /** Pictures, recordings and videos as their segments, anything else as a `file` segment; bytes inline (base64). */
  async sendFile(replyTo: string, file: OutboundFile): Promise<string> {
    const bytes = await readFile(file.path).catch((error: Error) => {
      throw new ChannelError('platform', `cannot read ${basename(file.path)} to send it (${error.message})`);
    });
    const type =
      file.kind === 'image' ? 'image' : file.kind === 'audio' ? 'record' : file.kind === 'video' ? 'video' : 'file';
    const segment = { type, data: { file: `base64://${bytes.toString('base64')}`, name: basename(file.path) } };
    const caption = file.caption ? [{ type: 'text', data: { text: renderMarkdown(file.caption, 'plain') } }] : [];
    return this.sendSegments(replyTo, type === 'file' ? [segment] : [segment, ...caption]).then(async (id) => {
      // A file segment carries no text: the caption follows it.
      if (type === 'file' && file.caption) await this.send(replyTo, file.caption);
      return id;
    });
  }

  /** OneBot v11 has no typing indicator. */
  async typing(): Promise<void> {}

  /** A picture or recording by the URL its segment gave. */
  async download(fileId: string): Promise<Buffer> {
    if (!/^https?:\/\//.test(fileId))
      throw new ChannelError('platform', 'this OneBot implementation gave no URL for the file');
    const answer = await sendForBytes({ maxAnswerBytes: MAX_DOWNLOAD_BYTES }, { url: fileId }).catch((error: Error) => {
      throw new ChannelError('network', `downloading a OneBot file failed (${error.message})`);
    });
    if (answer.status >= 300)
      throw new ChannelError('platform', `downloading a OneBot file failed (HTTP ${answer.status})`);
    return answer.bytes;
  }

  private async sendSegments(replyTo: string, message: unknown[]): Promise<string> {
    const { action, params } = target(replyTo);
    const answer = await this.call(action, { ...params, message });
    return String((answer.data as { message_id?: unknown } | undefined)?.message_id ?? '');
  }

  /**
   * Opens the socket with the access token; a refused token is `unauthorized`. `onFrame` listens from the start: an
   * implementation sends its first events with the handshake, and they are read before an awaited open resumes.
   */
  private open(onFrame: (raw: WebSocket.RawData) => void): Promise<WebSocket> {
    const headers = this.options.accessToken ? { Authorization: `Bearer ${this.options.accessToken}` } : undefined;
    const socket = new WebSocket(this.options.wsUrl, { handshakeTimeout: 10_000, ...(headers ? { headers } : {}) });
    socket.on('message', onFrame);
    return new Promise((resolve, reject) => {
      socket.once('open', () => {
        socket.removeAllListeners('error');
        socket.on('error', () => undefined);
        resolve(socket);
      });
      socket.once('unexpected-response', (_request, response) => {
        const status = response.statusCode ?? 0;
        socket.removeAllListeners('error');
        socket.on('error', () => undefined);
        socket.terminate();
        if (status === 401 || status === 403)
          reject(
            new ChannelError('unauthorized', `the OneBot implementation refused the access token (HTTP ${status})`),
          );
        else reject(new ChannelError('network', `the OneBot WebSocket answered HTTP ${status}`));
      });
      socket.once('error', (error: Error & { code?: string }) => {
        reject(new ChannelError('network', `cannot reach the OneBot WebSocket (${error.code ?? error.message})`));
      });
    });
  }

  /** One action; rejects when the implementation says it failed, or gives no answer in time. */
  private call(action: string, params: Record<string, unknown>): Promise<OneBotAnswer> {
    const socket = this.socket;
    if (!socket || socket.readyState !== WebSocket.OPEN)
      return Promise.reject(new ChannelError('network', 'the OneBot connection is not open'));
    const echo = `tern-${this.nextEcho++}`;
    return new Promise<OneBotAnswer>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(echo);
        reject(
          new ChannelError(
            'network',
            `OneBot ${action} got no answer within ${(this.options.callTimeoutMs ?? 15_000) / 1000} s`,
          ),
        );
      }, this.options.callTimeoutMs ?? 15_000);
      this.pending.set(echo, { resolve, reject, timer });
      socket.send(JSON.stringify({ action, params, echo }));
    }).then((answer) => {
      if (answer.status === 'ok' || answer.status === 'async') return answer;
      const why = answer.wording ?? answer.msg ?? answer.status;
      throw new ChannelError(
        answer.retcode === 1403 ? 'unauthorized' : 'platform',
        `OneBot ${action} failed (retcode ${answer.retcode}: ${why})`,
      );
    });
  }

  private settle(answer: OneBotAnswer): void {
    const pending = this.pending.get(answer.echo);
    if (!pending) return;
    this.pending.delete(answer.echo);
    clearTimeout(pending.timer);
    pending.resolve(answer);
  }

  private failPending(error: Error): void {
    for (const [echo, pending] of this.pending) {
      clearTimeout(pending.timer);
      pending.reject(error);
      this.pending.delete(echo);
    }
  }

  /** Any frame or pong proves the connection; a ping goes out after half the stall time of silence. */
  private alive(): void {
    clearTimeout(this.watchdog);
    const stallMs = this.options.stallMs ?? 60_000;
    const socket = this.socket;
    if (!socket) return;
    this.watchdog = setTimeout(() => {
      if (socket.readyState !== WebSocket.OPEN) return;
      socket.ping();
      this.watchdog = setTimeout(() => socket.terminate(), stallMs / 2);
    }, stallMs / 2);
  }
}
