import { randomUUID } from 'node:crypto';
import WebSocket from 'ws';
import { closeSocket } from '../close-socket.js';
import { namedChatOf } from '../chat-kind.js';
import { CHAT_COMMANDS } from '../command-names.js';
import { ChannelError, type Channel, type ChannelCapabilities, type ChannelHooks } from '../channel.js';
import {
  MAX_MESSAGE_CHARS,
  serverFrameSchema,
  type ClientFrame,
  type ClientTypingFrame,
  type ServerFrame,
} from './frames.js';
import { fromServerFrame } from './inbound.js';

export interface PicoClientOptions {
  /** The server's WebSocket, `ws://` or `wss://`. */
  url: string;
  /** Sent as `Authorization: Bearer <token>`. */
  token?: string;
  /** The session of server messages that name none. */
  sessionId: string;
  pingIntervalMs: number;
  /** Silence (no frame, no pong) after which the connection counts as dead. */
  readTimeoutMs: number;
}

/** A file a server sent inline is at most this large; the frame that carries it at most a little more. */
const MAX_FILE_BYTES = 20 * 1024 * 1024;
/** Inline files wait here for the gateway's `download`, which comes before the turn; older ones are let go. */
const KEPT_FILES = 32;

/**
 * A client of a remote Pico Protocol server (the peer runtime's `pico_client`): the server's `message.create` and
 * `media.create` frames are what its users say, each session a direct chat; replies go back as `message.send` in that
 * session, with `typing.start` … `typing.stop` around them. The protocol gives a client no edits and no delivery
 * answers: a placeholder stays and the reply follows it, and a reply counts as sent once it is written to the socket.
 * A dropped or silent connection fails the channel and its supervisor connects again, with backoff.
 */
export class PicoClientChannel implements Channel {
  readonly kind = 'pico_client';
  readonly capabilities: ChannelCapabilities = {
    commands: CHAT_COMMANDS,
    streaming: false,
    edits: false,
    maxMessageLength: MAX_MESSAGE_CHARS,
  };
  private socket: WebSocket | undefined;
  private stopping = false;
  private pinger: NodeJS.Timeout | undefined;
  private deadline: NodeJS.Timeout | undefined;
  /** The read deadline passed: the close that follows is a stall, not the server's doing. */
  private silent = false;
  private readonly files = new Map<string, Buffer>();

  constructor(private readonly options: PicoClientOptions) {}

  async start(hooks: ChannelHooks): Promise<void> {
    this.stopping = false;
    this.silent = false;
    const socket = await this.open((from, raw) => {
      this.alive(from);
      const frame = parseServerFrame(raw.toString());
      const taken = frame && fromServerFrame(frame, this.options.sessionId, MAX_FILE_BYTES);
      if (!taken) return;
      for (const file of taken.files) this.keep(file.fileId, file.bytes);
      void hooks.onMessage(taken.message);
    });
    this.socket = socket;
    socket.on('pong', () => this.alive(socket));
    socket.once('close', (code) => {
      clearInterval(this.pinger);
      clearTimeout(this.deadline);
      if (this.stopping) return;
      hooks.onFailed(
        this.silent
          ? new ChannelError('stalled', `the Pico server sent nothing for ${this.options.readTimeoutMs / 1000} s`)
          : new ChannelError('network', `the Pico server closed the connection (code ${code})`),
      );
    });
    this.pinger = setInterval(() => {
      if (socket.readyState === WebSocket.OPEN) socket.ping();
    }, this.options.pingIntervalMs);
    this.alive(socket);
    hooks.onConnected();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    clearInterval(this.pinger);
    clearTimeout(this.deadline);
    const socket = this.socket;
    this.socket = undefined;
    await closeSocket(socket);
  }

  /** A session is the direct chat `direct:<session>`; replies name the session. */
  replyToOf(chat: string): string {
    return namedChatOf(chat)?.id ?? chat;
  }

  /** Markdown goes as it is: Pico chat pages render it. */
  async send(replyTo: string, text: string): Promise<string> {
    const id = `msg_${randomUUID().replaceAll('-', '')}`;
    const frame: ClientFrame = {
      type: 'message.send',
      id,
      session_id: replyTo,
      timestamp: Date.now(),
      payload: { content: text },
    };
    await this.write(frame);
    return id;
  }

  async edit(): Promise<void> {
    throw new ChannelError('platform', 'the Pico Protocol lets a client send messages, not edit them');
  }

  async typing(replyTo: string): Promise<void> {
    await this.typingFrame(replyTo, 'typing.start');
  }

  async typingDone(replyTo: string): Promise<void> {
    await this.typingFrame(replyTo, 'typing.stop');
  }

  async download(fileId: string): Promise<Buffer> {
    const bytes = this.files.get(fileId);
    if (!bytes) throw new ChannelError('platform', 'the file the Pico server sent is no longer kept');
    this.files.delete(fileId);
    return bytes;
  }

  private async typingFrame(session: string, type: ClientTypingFrame['type']): Promise<void> {
    const frame: ClientTypingFrame = { type, session_id: session, timestamp: Date.now(), payload: {} };
    // Best effort: a reply on its way is not held up by its typing indicator.
    await this.write(frame).catch(() => undefined);
  }

  /**
   * One frame out, settled once written: a socket that is not open takes nothing (the outbox tries the part again
   * after the reconnect); a write that fails may have left.
   */
  private write(frame: ClientFrame | ClientTypingFrame): Promise<void> {
    const socket = this.socket;
    if (!socket || socket.readyState !== WebSocket.OPEN)
      return Promise.reject(
        new ChannelError('network', 'the Pico server is not connected', { delivered: 'no', retry: true }),
      );
    return new Promise((resolve, reject) => {
      socket.send(JSON.stringify(frame), (error) => {
        if (!error) return resolve();
        reject(
          new ChannelError('network', `writing to the Pico server failed (${error.message})`, {
            delivered: 'unknown',
            retry: false,
          }),
        );
      });
    });
  }

  private keep(fileId: string, bytes: Buffer): void {
    this.files.set(fileId, bytes);
    for (const old of this.files.keys()) {
      if (this.files.size <= KEPT_FILES) break;
      this.files.delete(old);
    }
  }

  /** Opens the socket with the token; a refused token is `unauthorized`. Frames are read from the handshake on. */
  private open(onFrame: (socket: WebSocket, raw: WebSocket.RawData) => void): Promise<WebSocket> {
    const headers = this.options.token ? { Authorization: `Bearer ${this.options.token}` } : undefined;
    const socket = new WebSocket(this.options.url, {
      handshakeTimeout: 10_000,
      maxPayload: MAX_FILE_BYTES * 2,
      ...(headers ? { headers } : {}),
    });
    socket.on('message', (raw) => onFrame(socket, raw));
    return new Promise((resolve, reject) => {
      const settled = (): void => {
        socket.removeAllListeners('error');
        socket.on('error', () => undefined);
      };
      socket.once('open', () => {
        settled();
        resolve(socket);
      });
      socket.once('unexpected-response', (_request, response) => {
        const status = response.statusCode ?? 0;
        settled();
        socket.terminate();
        reject(
          status === 401 || status === 403
            ? new ChannelError('unauthorized', `the Pico server refused the token (HTTP ${status})`)
            : new ChannelError('network', `the Pico server answered HTTP ${status}`),
        );
      });
      socket.once('error', (error: Error & { code?: string }) => {
        reject(new ChannelError('network', `cannot reach the Pico server (${error.code ?? error.message})`));
      });
    });
  }

  /** Any frame or pong proves the connection for another `read_timeout`; silence that long ends it. */
  private alive(socket: WebSocket): void {
    clearTimeout(this.deadline);
    if (this.stopping) return;
    this.deadline = setTimeout(() => {
      this.silent = true;
      socket.terminate();
    }, this.options.readTimeoutMs);
  }
}

/** A server frame, or undefined for what is not one (a frame of a newer protocol, a broken one). */
function parseServerFrame(text: string): ServerFrame | undefined {
  try {
    const parsed = serverFrameSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
