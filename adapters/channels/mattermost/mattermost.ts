import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import type { Client4 } from '@mattermost/client';
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
import { loadClient4 } from './client4.js';
import { fromPosted, mattermostTarget, wsEventSchema } from './events.js';
import { keepRateLimits } from './rate-limited-fetch.js';

export interface MattermostOptions {
  serverUrl: string;
  token: string;
  /** Silence on the socket after which the connection counts as lost. */
  stallMs?: number;
}

/** Mattermost's post limit was 4,000 characters before 5.0 and is 16,383 since: replies split at the older one. */
export const MATTERMOST_MAX_LENGTH = 4000;

/** Mattermost's default largest file (`FileSettings.MaxFileSize`, 100 MB). */
const MAX_DOWNLOAD_BYTES = 100 * 1024 * 1024;

/** A REST failure as the supervisor needs it: 401 is a bad token, a status under 500 a refusal. */
function failure(error: unknown, what: string): ChannelError {
  if (error instanceof ChannelError) return error;
  const status = (error as { status_code?: number }).status_code ?? 0;
  const message = `Mattermost ${what} failed (${status || (error as Error).message})`;
  if (status === 401) return new ChannelError('unauthorized', message, { delivered: 'no', retry: false });
  if (status === 429) return new ChannelError('rate_limited', message, { delivered: 'no', retry: true });
  if (status >= 400 && status < 500) return new ChannelError('platform', message, { delivered: 'no', retry: false });
  return new ChannelError('network', message, { delivered: 'unknown', retry: true });
}

/**
 * A Mattermost bot account: REST calls through `@mattermost/client`'s Client4, events over the server's WebSocket.
 * The library's WebSocketClient is not used: it needs the browser's `WebSocket` and `CloseEvent` (Node 20 has
 * neither), logs to the console and reconnects on its own timers, which would hide the state from the gateway.
 */
export class MattermostChannel implements Channel {
  readonly kind = 'mattermost';
  readonly capabilities: ChannelCapabilities = {
    commands: CHAT_COMMANDS,
    streaming: true,
    maxMessageLength: MATTERMOST_MAX_LENGTH,
  };
  private client: Client4 | undefined;
  private socket: WebSocket | undefined;
  private stopping = false;
  private seq = 1;
  private watchdog: NodeJS.Timeout | undefined;
  private botId = '';
  /** The bot's direct channel with each user it wrote to first, by user id. */
  private readonly directs = new Map<string, string>();

  constructor(private readonly options: MattermostOptions) {}

  async start(hooks: ChannelHooks): Promise<void> {
    this.stopping = false;
    const Client4 = await loadClient4();
    const client = new Client4();
    client.setUrl(this.options.serverUrl.replace(/\/+$/, ''));
    client.setToken(this.options.token);
    keepRateLimits(client);
    this.client = client;
    const me = await client.getMe().catch((error: unknown) => {
      throw failure(error, 'users/me');
    });
    this.botId = me.id;
    // Events are read from the first frame on: one can share a TCP read with the answer to the challenge.
    const socket = await this.open(`${client.getUrl().replace(/^http/, 'ws')}/api/v4/websocket`, (raw, ws) => {
      this.alive(ws);
      let frame: unknown;
      try {
        frame = JSON.parse(raw.toString());
      } catch {
        return;
      }
      const event = wsEventSchema.safeParse(frame);
      if (!event.success || event.data.event !== 'posted') return;
      const message = fromPosted(event.data.data, me);
      if (message) void hooks.onMessage(message);
    });
    this.socket = socket;
    socket.on('pong', () => this.alive(socket));
    socket.on('close', (code) => {
      clearTimeout(this.watchdog);
      if (!this.stopping && this.socket === socket)
        hooks.onFailed(new ChannelError('network', `the Mattermost WebSocket closed (code ${code})`));
    });
    this.alive(socket);
    hooks.onConnected();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.watchdog);
    const socket = this.socket;
    this.socket = undefined;
    socket?.terminate();
  }

  /** A user is reached in the bot's direct channel with them (`user:<id>`, found on first use), a channel by its id. */
  replyToOf(chat: string): string {
    const named = namedChatOf(chat);
    if (!named) return chat;
    return named.kind === 'direct' ? `user:${named.id}` : named.id;
  }

  async send(replyTo: string, text: string): Promise<string> {
    // Mattermost renders Markdown itself.
    const target = await this.targetOf(replyTo);
    const post = await this.rest()
      .createPost({ ...target, message: text })
      .catch((error: unknown) => {
        throw failure(error, 'posts');
      });
    return post.id;
  }

  async edit(_replyTo: string, messageId: string, text: string): Promise<void> {
    await this.rest()
      .patchPost({ id: messageId, message: text })
      .catch((error: unknown) => {
        throw failure(error, 'posts/patch');
      });
  }

  /** The file uploaded to the channel (`POST /files`), then a post that carries it with the caption as its text. */
  async sendFile(replyTo: string, file: OutboundFile): Promise<string> {
    const target = await this.targetOf(replyTo);
    const name = basename(file.path);
    const bytes = await readFile(file.path).catch((error: Error) => {
      throw new ChannelError('platform', `cannot read ${name} to send it (${error.message})`);
    });
    const form = new FormData();
    form.append('channel_id', target.channel_id);
    form.append('files', new Blob([bytes], { type: file.mime ?? 'application/octet-stream' }), name);
    const uploaded = (await this.rest()
      .uploadFile(form)
      .catch((error: unknown) => {
        throw failure(error, 'files');
      })) as { file_infos?: Array<{ id?: string }> };
    const id = uploaded.file_infos?.[0]?.id;
    if (!id) throw new ChannelError('platform', 'Mattermost gave no file id for the upload');
    const post = await this.rest()
      .createPost({ ...target, message: file.caption ?? '', file_ids: [id] })
      .catch((error: unknown) => {
        throw failure(error, 'posts');
      });
    return post.id;
  }

  /** A file a user posted, by its id, with the bot's token. */
  async download(fileId: string): Promise<Buffer> {
    const url = `${this.rest().getUrl()}/api/v4/files/${encodeURIComponent(fileId)}`;
    const answer = await sendForBytes(
      { maxAnswerBytes: MAX_DOWNLOAD_BYTES },
      { url, headers: { authorization: `Bearer ${this.options.token}` } },
    ).catch((error: Error) => {
      throw new ChannelError('network', `downloading a Mattermost file failed (${error.message})`);
    });
    if (answer.status >= 300)
      throw new ChannelError('platform', `downloading a Mattermost file failed (HTTP ${answer.status})`);
    return answer.bytes;
  }

  async typing(replyTo: string): Promise<void> {
    const { channel_id, root_id } = await this.targetOf(replyTo).catch(() => ({ channel_id: '', root_id: '' }));
    const socket = this.socket;
    if (channel_id === '') return;
    if (socket?.readyState !== WebSocket.OPEN) return;
    const data = { channel_id, parent_id: root_id ?? '' };
    socket.send(JSON.stringify({ seq: this.seq++, action: 'user_typing', data }));
  }

  /** The channel (and thread) of a reply target; `user:<id>` is the direct channel with that user. */
  private async targetOf(replyTo: string): Promise<{ channel_id: string; root_id?: string }> {
    if (!replyTo.startsWith('user:')) return mattermostTarget(replyTo);
    const user = replyTo.slice('user:'.length);
    const known = this.directs.get(user);
    if (known) return { channel_id: known };
    const channel = await this.rest()
      .createDirectChannel([this.botId, user])
      .catch((error: unknown) => {
        throw failure(error, 'channels/direct');
      });
    this.directs.set(user, channel.id);
    return { channel_id: channel.id };
  }

  private rest(): Client4 {
    if (!this.client) throw new ChannelError('network', 'the Mattermost channel is not started');
    return this.client;
  }

  /** The WebSocket, authenticated: resolves on the server's OK to the challenge, a refusal is `unauthorized`. */
  private open(url: string, onFrame: (raw: WebSocket.RawData, ws: WebSocket) => void): Promise<WebSocket> {
    const socket = new WebSocket(url, { handshakeTimeout: 10_000 });
    socket.on('message', (raw) => onFrame(raw, socket));
    return new Promise((resolve, reject) => {
      const seq = this.seq++;
      socket.once('open', () =>
        socket.send(JSON.stringify({ seq, action: 'authentication_challenge', data: { token: this.options.token } })),
      );
      const onReply = (raw: WebSocket.RawData): void => {
        const frame = JSON.parse(raw.toString()) as { seq_reply?: number; status?: string };
        if (frame.seq_reply !== seq) return;
        socket.off('message', onReply);
        if (frame.status === 'OK') resolve(socket);
        else reject(new ChannelError('unauthorized', 'the Mattermost WebSocket refused the token'));
      };
      socket.on('message', onReply);
      socket.once('close', (code) =>
        reject(
          code === 4001
            ? new ChannelError('unauthorized', 'the Mattermost WebSocket refused the token')
            : new ChannelError('network', `the Mattermost WebSocket closed (code ${code})`),
        ),
      );
      socket.on('error', (error: Error & { code?: string }) =>
        reject(new ChannelError('network', `cannot reach the Mattermost WebSocket (${error.code ?? error.message})`)),
      );
    });
  }

  /** Any frame or pong proves the connection; a ping goes out after half the stall time of silence. */
  private alive(socket: WebSocket): void {
    clearTimeout(this.watchdog);
    const stallMs = this.options.stallMs ?? 60_000;
    this.watchdog = setTimeout(() => {
      if (socket.readyState !== WebSocket.OPEN) return;
      socket.ping();
      this.watchdog = setTimeout(() => socket.terminate(), stallMs / 2);
    }, stallMs / 2);
  }
}
