// A loopback WeCom long connection for intelligent bots, as @wecom/aibot-node-sdk speaks it: JSON frames over one
// WebSocket. `aibot_subscribe` (bot_id + secret) answered by an ack with `errcode`; `ping` acks; messages pushed as
// `aibot_msg_callback`; replies as `aibot_respond_msg` streams on a callback's req_id (`finish` closes one) and
// pushes as `aibot_send_msg`, media uploaded in chunks (`aibot_upload_media_init`, `_chunk`, `_finish`), each
// acknowledged on its req_id. Pictures users send are served over HTTP, AES-256-CBC encrypted with the `aeskey` the
// message carries.
import { createCipheriv, createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { HeldAnswers, Outage } from '../contract/bad-days.js';

const hex = (bytes: number): string => randomBytes(bytes).toString('hex');

export interface WeComStream {
  id: string;
  /** The callback it answers, and that callback's message. */
  reqId: string;
  msgId: string;
  chat: string;
  /** Each content the stream showed, in order. */
  contents: string[];
  finished: boolean;
  /** When it opened and when it last changed (epoch ms). */
  openedAt: number;
  at: number;
}

export interface WeComPush {
  chatId: string;
  chatType: unknown;
  /** A Markdown push's text. */
  content: string;
  /** A media push's file: its type, the name it was uploaded under, its bytes. */
  media?: { type: string; filename: string; bytes: Buffer };
  at: number;
}

/** WeCom's file encryption: AES-256-CBC, the IV the key's first 16 bytes, PKCS#7 padding to 32 bytes. */
function encrypt(bytes: Buffer, key: Buffer): Buffer {
  const pad = 32 - (bytes.length % 32);
  const cipher = createCipheriv('aes-256-cbc', key, key.subarray(0, 16)).setAutoPadding(false);
  return Buffer.concat([cipher.update(Buffer.concat([bytes, Buffer.alloc(pad, pad)])), cipher.final()]);
}

interface Upload {
  type: string;
  filename: string;
  totalChunks: number;
  md5: string;
  chunks: Buffer[];
}

interface Frame {
  cmd?: string;
  headers?: { req_id?: string };
  body?: Record<string, unknown>;
}

export class WeComEmulator {
  readonly botId = `aib${hex(10)}`;
  readonly secret = `wcsecret${hex(14)}`;
  readonly streams: WeComStream[] = [];
  readonly pushes: WeComPush[] = [];
  /** Replies on callbacks are refused as too late (WeCom's window closed): answers must be pushed. */
  windowClosed = false;
  private server!: Server;
  private readonly wss = new WebSocketServer({ noServer: true });
  private readonly sockets = new Set<WebSocket>();
  private readonly uploads = new Map<string, Upload>();
  /** Uploaded media by media_id. */
  private readonly media = new Map<string, { type: string; filename: string; bytes: Buffer }>();
  /** Callback req_id → the chat it came from and its message. */
  private readonly callbacks = new Map<string, { chat: string; msgId: string }>();
  private subscribed = 0;
  /** Encrypted pictures by path. */
  private readonly files = new Map<string, Buffer>();
  private readonly outages = new Outage();
  private readonly answers = new HeldAnswers();

  static async start(): Promise<WeComEmulator> {
    const emulator = new WeComEmulator();
    emulator.server = createServer((req, res) => {
      const file = emulator.files.get(req.url ?? '');
      if (!file) return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(file);
    });
    emulator.server.on('upgrade', (req, socket, head) => {
      if (emulator.outages.refusing) return socket.end('HTTP/1.1 503 Service Unavailable\r\n\r\n');
      emulator.wss.handleUpgrade(req, socket, head, (ws) => emulator.accept(ws));
    });
    await new Promise<void>((resolve) => emulator.server.listen(0, '127.0.0.1', resolve));
    return emulator;
  }

  get url(): string {
    return `ws://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Connections that subscribed with the right secret. */
  connections(): number {
    return this.subscribed;
  }

  /** A colleague in a one-to-one chat with the bot. */
  user(name = 'user'): {
    userId: string;
    say(text: string): Record<string, unknown>;
    /** A picture, with its caption as one mixed message. */
    sendImage(bytes: Buffer, caption: string): Record<string, unknown>;
    speak(transcript: string): void;
    streams(): WeComStream[];
    pushes(): WeComPush[];
  } {
    const userId = `${name}${hex(4)}`;
    const from = { chattype: 'single', from: { userid: userId } };
    return {
      userId,
      say: (text) => this.deliver({ ...from, msgtype: 'text', text: { content: text } }),
      sendImage: (bytes, caption) => {
        const image = this.picture(bytes);
        if (!caption) return this.deliver({ ...from, msgtype: 'image', image });
        const items = [
          { msgtype: 'text', text: { content: caption } },
          { msgtype: 'image', image },
        ];
        return this.deliver({ ...from, msgtype: 'mixed', mixed: { msg_item: items } });
      },
      speak: (transcript) =>
        void this.deliver({
          chattype: 'single',
          from: { userid: userId },
          msgtype: 'voice',
          voice: { content: transcript },
        }),
      streams: () => this.streams.filter((s) => s.chat === userId),
      pushes: () => this.pushes.filter((p) => p.chatId === userId),
    };
  }

  /** An @-message to the bot in a group: WeCom puts the mention first. */
  groupAt(chatId: string, text: string): void {
    this.deliver({
      chatid: chatId,
      chattype: 'group',
      from: { userid: `user${hex(4)}` },
      msgtype: 'text',
      text: { content: `@Tern ${text}` },
    });
  }

  /** Sends a message again, as WeCom does when it is unsure it arrived. */
  redeliver(body: Record<string, unknown>): void {
    this.push(body);
  }

  drop(): void {
    for (const socket of this.sockets) socket.terminate();
  }

  /** Resolves once a bot is subscribed: WeCom hands messages only to a connected bot. */
  async online(): Promise<void> {
    while (this.sockets.size === 0) await new Promise((resolve) => setTimeout(resolve, 20));
  }

  /** Drops every connection and refuses new ones for `ms`. */
  async outage(ms: number): Promise<void> {
    await this.outages.for(ms, () => this.drop());
  }

  /** Finished replies and pushes are taken but their acks kept back until `release()`. */
  holdSendAnswers(): { held(): number; release(): void } {
    return this.answers.start();
  }

  /** A picture's `image` field: where to fetch it and the key it is encrypted with. */
  private picture(bytes: Buffer): { url: string; aeskey: string } {
    const key = randomBytes(32);
    const path = `/cgi-bin/download?file=${hex(10)}`;
    this.files.set(path, encrypt(bytes, key));
    return { url: `${this.url.replace('ws', 'http')}${path}`, aeskey: key.toString('base64') };
  }

  async close(): Promise<void> {
    this.drop();
    this.wss.close();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private deliver(fields: Record<string, unknown>): Record<string, unknown> {
    const body = {
      msgid: hex(16),
      aibotid: this.botId,
      create_time: Math.floor(Date.now() / 1000),
      response_url: `https://qyapi.weixin.qq.com/cgi-bin/aibot/response?response_code=${hex(12)}`,
      ...fields,
    };
    this.push(body);
    return body;
  }

  private push(body: Record<string, unknown>): void {
    const reqId = hex(12);
    const chat = String(body.chatid ?? (body.from as { userid: string }).userid);
    this.callbacks.set(reqId, { chat, msgId: String(body.msgid) });
    for (const socket of this.sockets)
      socket.send(JSON.stringify({ cmd: 'aibot_msg_callback', headers: { req_id: reqId }, body }));
  }

  private accept(socket: WebSocket): void {
    let authorized = false;
    const ack = (reqId: string, errcode = 0, errmsg = 'ok', answer?: Record<string, unknown>): void =>
      socket.send(JSON.stringify({ headers: { req_id: reqId }, errcode, errmsg, ...(answer ? { body: answer } : {}) }));
    /** A finished reply's or a push's ack, kept back while sends are held. */
    const held = (final: boolean, answer: () => void): void => {
      if (final) this.answers.answer(answer);
      else answer();
    };
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('message', (raw) => {
      const frame = JSON.parse(raw.toString()) as Frame;
      const reqId = frame.headers?.req_id ?? '';
      const body = frame.body ?? {};
      if (frame.cmd === 'aibot_subscribe') {
        if (body.bot_id !== this.botId || body.secret !== this.secret) return ack(reqId, 40001, 'invalid credential');
        authorized = true;
        this.subscribed++;
        this.sockets.add(socket);
        return ack(reqId);
      }
      if (!authorized) return ack(reqId, 40014, 'not subscribed');
      if (frame.cmd === 'ping') return ack(reqId);
      if (frame.cmd === 'aibot_respond_msg') {
        const callback = this.callbacks.get(reqId);
        const stream = body.stream as { id: string; finish: boolean; content: string } | undefined;
        if (!callback || !stream) return ack(reqId, 40008, 'invalid req_id');
        if (this.windowClosed) return ack(reqId, 846607, 'stream reply expired');
        let known = this.streams.find((s) => s.id === stream.id);
        if (known?.finished) return ack(reqId, 846605, 'stream already finished');
        const now = Date.now();
        if (!known)
          this.streams.push(
            (known = { id: stream.id, reqId, ...callback, contents: [], finished: false, openedAt: now, at: now }),
          );
        known.contents.push(stream.content);
        known.finished = stream.finish;
        known.at = now;
        return held(stream.finish, () => ack(reqId));
      }
      if (frame.cmd === 'aibot_upload_media_init') {
        const uploadId = hex(8);
        const {
          type,
          filename,
          total_chunks: totalChunks,
          md5,
        } = body as Record<string, string> & { total_chunks: number };
        this.uploads.set(uploadId, { type, filename, totalChunks, md5, chunks: [] });
        return ack(reqId, 0, 'ok', { upload_id: uploadId });
      }
      if (frame.cmd === 'aibot_upload_media_chunk') {
        const upload = this.uploads.get(String(body.upload_id));
        if (!upload) return ack(reqId, 40058, 'invalid upload_id');
        upload.chunks[Number(body.chunk_index)] = Buffer.from(String(body.base64_data), 'base64');
        return ack(reqId);
      }
      if (frame.cmd === 'aibot_upload_media_finish') {
        const upload = this.uploads.get(String(body.upload_id));
        const bytes = Buffer.concat(upload?.chunks ?? []);
        if (!upload || createHash('md5').update(bytes).digest('hex') !== upload.md5)
          return ack(reqId, 40058, 'bad upload');
        const mediaId = `3${hex(20)}`;
        this.media.set(mediaId, { type: upload.type, filename: upload.filename, bytes });
        return ack(reqId, 0, 'ok', { type: upload.type, media_id: mediaId, created_at: String(Date.now()) });
      }
      if (frame.cmd === 'aibot_send_msg') {
        const markdown = body.markdown as { content?: string } | undefined;
        const type = String(body.msgtype);
        const mediaId = (body[type] as { media_id?: string } | undefined)?.media_id;
        const media = mediaId ? this.media.get(mediaId) : undefined;
        if (type !== 'markdown' && !media) return ack(reqId, 40007, 'invalid media_id');
        this.pushes.push({
          chatId: String(body.chatid),
          chatType: body.chat_type,
          content: markdown?.content ?? '',
          ...(media ? { media } : {}),
          at: Date.now(),
        });
        return held(true, () => ack(reqId));
      }
      return ack(reqId, 40009, `unknown cmd ${frame.cmd ?? ''}`);
    });
  }
}
