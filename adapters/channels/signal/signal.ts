import { readFile } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { basename } from 'node:path';
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
import { fromEnvelope, receiveSchema } from './envelope.js';

export interface SignalOptions {
  account: string;
  host: string;
  port: number;
  /** How long a call may wait for its answer. */
  callTimeoutMs?: number;
}

/** Signal shows longer texts folded ("Read more") and signal-cli sends them as a text attachment: split before. */
export const SIGNAL_MAX_LENGTH = 2000;

interface Pending {
  resolve(result: unknown): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

/** `group:<id>` or a number as the params signal-cli takes for it. */
const to = (replyTo: string): Record<string, unknown> =>
  replyTo.startsWith('group:') ? { groupId: replyTo.slice('group:'.length) } : { recipient: [replyTo] };

/**
 * One Signal account through signal-cli's JSON-RPC daemon over TCP (`signal-cli -a ACCOUNT daemon --tcp`): messages
 * arrive as `receive` notifications, replies go out with `send`. The user runs signal-cli and links or registers the
 * account there; Tern never sees its keys.
 */
export class SignalChannel implements Channel {
  readonly kind = 'signal';
  readonly capabilities: ChannelCapabilities = {
    commands: CHAT_COMMANDS,
    streaming: false,
    // signal-cli can edit (`editTimestamp`), but Signal allows few edits per message: a reply never streams.
    edits: false,
    maxMessageLength: SIGNAL_MAX_LENGTH,
  };
  private socket: Socket | undefined;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private stopping = false;

  constructor(private readonly options: SignalOptions) {}

  async start(hooks: ChannelHooks): Promise<void> {
    this.stopping = false;
    const socket = await this.open();
    this.socket = socket;
    let buffered = '';
    socket.on('data', (chunk) => {
      buffered += chunk.toString('utf8');
      for (let end = buffered.indexOf('\n'); end >= 0; end = buffered.indexOf('\n')) {
        const line = buffered.slice(0, end);
        buffered = buffered.slice(end + 1);
        this.take(line, hooks);
      }
    });
    socket.on('close', () => {
      const error = new ChannelError('network', 'the signal-cli connection closed');
      this.failPending(error);
      if (!this.stopping && this.socket === socket) hooks.onFailed(error);
    });
    const accounts = await this.call('listAccounts', {}, false).catch((error: unknown) => {
      socket.destroy();
      throw error;
    });
    const numbers = Array.isArray(accounts) ? accounts.map((a) => (a as { number?: unknown }).number) : [];
    if (!numbers.includes(this.options.account)) {
      socket.destroy();
      throw new ChannelError(
        'bad_settings',
        `signal-cli runs no account ${this.options.account} (it has: ${numbers.join(', ') || 'none'})`,
      );
    }
    hooks.onConnected();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    const socket = this.socket;
    this.socket = undefined;
    socket?.destroy();
  }

  /** A user is sent to by number (or UUID), a group as `group:<group id>`. */
  replyToOf(chat: string): string {
    const named = namedChatOf(chat);
    if (!named) return chat;
    return named.kind === 'direct' ? named.id : `group:${named.id}`;
  }

  async send(replyTo: string, text: string): Promise<string> {
    // Signal shows text as it is: Markdown is reduced to its words.
    return this.sendMessage(replyTo, { message: renderMarkdown(text, 'plain') });
  }

  async edit(): Promise<void> {
    throw new ChannelError('platform', 'Tern does not edit Signal messages');
  }

  /** The file as a data URI attachment (signal-cli reads those), the caption as the message's text. */
  async sendFile(replyTo: string, file: OutboundFile): Promise<string> {
    const bytes = await readFile(file.path).catch((error: Error) => {
      throw new ChannelError('platform', `cannot read ${basename(file.path)} to send it (${error.message})`);
    });
    const mime = file.mime ?? 'application/octet-stream';
    const name = encodeURIComponent(basename(file.path));
    return this.sendMessage(replyTo, {
      message: file.caption ? renderMarkdown(file.caption, 'plain') : '',
      attachments: [`data:${mime};filename=${name};base64,${bytes.toString('base64')}`],
    });
  }

  async typing(replyTo: string): Promise<void> {
    await this.call('sendTyping', to(replyTo)).catch(() => undefined);
  }

  async typingDone(replyTo: string): Promise<void> {
    await this.call('sendTyping', { ...to(replyTo), stop: true }).catch(() => undefined);
  }

  /** `<recipient>|<attachment id>` as the fileId a message's media carries. */
  async download(fileId: string): Promise<Buffer> {
    const bar = fileId.lastIndexOf('|');
    const result = (await this.call('getAttachment', { ...to(fileId.slice(0, bar)), id: fileId.slice(bar + 1) })) as {
      data?: unknown;
    };
    if (typeof result?.data !== 'string') throw new ChannelError('platform', 'signal-cli gave no attachment data');
    return Buffer.from(result.data, 'base64');
  }

  private async sendMessage(replyTo: string, params: Record<string, unknown>): Promise<string> {
    const result = (await this.call('send', { ...to(replyTo), ...params })) as { timestamp?: unknown };
    return String(result?.timestamp ?? '');
  }

  private open(): Promise<Socket> {
    return new Promise((resolve, reject) => {
      const socket = connect({ host: this.options.host, port: this.options.port });
      socket.once('connect', () => {
        socket.removeAllListeners('error');
        socket.on('error', () => undefined);
        resolve(socket);
      });
      socket.once('error', (error: Error & { code?: string }) => {
        reject(new ChannelError('network', `cannot reach signal-cli's daemon (${error.code ?? error.message})`));
      });
    });
  }

  private take(line: string, hooks: ChannelHooks): void {
    let frame: { id?: unknown; result?: unknown; error?: { code?: number; message?: string }; method?: unknown };
    try {
      frame = JSON.parse(line) as typeof frame;
    } catch {
      return;
    }
    if (typeof frame.id === 'number' && frame.method === undefined) {
      const pending = this.pending.get(frame.id);
      if (!pending) return;
      this.pending.delete(frame.id);
      clearTimeout(pending.timer);
      if (frame.error) {
        const why = `${frame.error.code ?? '?'}: ${frame.error.message ?? ''}`;
        pending.reject(
          new ChannelError('platform', `signal-cli refused the call (${why})`, {
            delivered: 'no',
            retry: false,
          }),
        );
      } else pending.resolve(frame.result);
      return;
    }
    const receive = receiveSchema.safeParse(frame);
    if (!receive.success) return;
    const message = fromEnvelope(receive.data, this.options.account);
    if (message) void hooks.onMessage(message);
  }

  /** One JSON-RPC call; `withAccount` names the account, as a multi-account daemon needs. */
  private call(method: string, params: Record<string, unknown>, withAccount = true): Promise<unknown> {
    const socket = this.socket;
    if (!socket || socket.destroyed)
      return Promise.reject(
        new ChannelError('network', 'the signal-cli connection is not open', { delivered: 'no', retry: true }),
      );
    const id = this.nextId++;
    const timeoutMs = this.options.callTimeoutMs ?? 30_000;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(
          new ChannelError('network', `signal-cli gave no answer to ${method} within ${timeoutMs / 1000} s`, {
            delivered: 'unknown',
            retry: false,
          }),
        );
      }, timeoutMs);
      this.pending.set(id, { resolve, reject, timer });
      const body = { ...params, ...(withAccount ? { account: this.options.account } : {}) };
      socket.write(`${JSON.stringify({ jsonrpc: '2.0', method, params: body, id })}\n`);
    });
  }

  private failPending(error: Error): void {
    for (const [id, pending] of this.pending) {
      clearTimeout(pending.timer);
      pending.reject(error);
      this.pending.delete(id);
    }
  }
}
