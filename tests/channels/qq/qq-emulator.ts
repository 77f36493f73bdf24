// A loopback QQ bot platform: the token endpoint (`POST /app/getAppAccessToken`, AppID + AppSecret), the OpenAPI
// (`GET /gateway`, `GET /users/@me`, messages and files for users, groups and guild channels, checked against
// `Authorization: QQBot <token>`), and the bot gateway WebSocket (hello, identify, READY, heartbeat acks,
// dispatches with sequence numbers).
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { HeldAnswers, Outage } from '../contract/bad-days.js';

export interface QqSent {
  id: string;
  /** `c2c:<openid>`, `group:<openid>` or `channel:<id>`. */
  target: string;
  body: Record<string, unknown>;
  at: number;
}

const hex = (bytes: number): string => randomBytes(bytes).toString('hex').toUpperCase();

export class QqEmulator {
  readonly appId = `102${String(Math.floor(Math.random() * 1e6)).padStart(6, '0')}`;
  readonly appSecret = `qqsecret${hex(8)}`;
  readonly sent: QqSent[] = [];
  /** Every message posted, the input notices ("typing…", msg_type 6) included. */
  readonly posted: QqSent[] = [];
  readonly uploads: Array<{ target: string; body: Record<string, unknown> }> = [];
  /** What each identify carried. */
  readonly identifies: Array<{ token: string; intents: number }> = [];
  private server!: Server;
  private readonly wss = new WebSocketServer({ noServer: true });
  private readonly sessions = new Set<WebSocket>();
  private readonly tokens = new Set<string>();
  private readonly files = new Map<string, Buffer>();
  /** Each dispatched message frame by its message id, for a redelivery. */
  private readonly frames = new Map<string, Record<string, unknown>>();
  /** Uploaded files by the `file_info` handed back for them. */
  private readonly infos = new Map<string, { name: string; bytes: Buffer }>();
  private waiting: Array<() => void> = [];
  private readonly outages = new Outage();
  private readonly answers = new HeldAnswers();
  private seq = 0;
  private nextId = 1;
  private connected = 0;

  static async start(): Promise<QqEmulator> {
    const emulator = new QqEmulator();
    emulator.server = createServer((req, res) => void emulator.handle(req, res));
    emulator.server.on('upgrade', (req, socket, head) => {
      if (emulator.outages.refusing) return socket.end('HTTP/1.1 503 Service Unavailable\r\n\r\n');
      if (req.url !== '/websocket') return socket.end('HTTP/1.1 404 Not Found\r\n\r\n');
      emulator.wss.handleUpgrade(req, socket, head, (ws) => emulator.accept(ws));
    });
    await new Promise<void>((resolve) => emulator.server.listen(0, '127.0.0.1', resolve));
    return emulator;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Gateway sessions that reached READY. */
  connections(): number {
    return this.connected;
  }

  /** A user in a private chat with the bot. */
  user(): {
    openid: string;
    say(text: string): string;
    sendImage(bytes: Buffer, caption: string): string;
    sendVoice(bytes: Buffer): string;
    sent(): QqSent[];
    typing(): number;
  } {
    const openid = hex(16);
    return {
      openid,
      sendImage: (bytes, caption) => {
        const path = `/files/${hex(6)}.png`;
        this.files.set(path, bytes);
        const attachment = { content_type: 'image/png', filename: 'picture.png', url: `${this.url}${path}` };
        return this.dispatch('C2C_MESSAGE_CREATE', {
          author: { id: openid, user_openid: openid },
          content: caption,
          attachments: [attachment],
        });
      },
      typing: () => this.posted.filter((m) => m.target === `c2c:${openid}` && m.body.msg_type === 6).length,
      say: (text) =>
        this.dispatch('C2C_MESSAGE_CREATE', { author: { id: openid, user_openid: openid }, content: text }),
      sendVoice: (bytes) => {
        const path = `/files/${hex(6)}.wav`;
        this.files.set(path, bytes);
        const attachment = {
          content_type: 'voice',
          filename: 'voice.silk',
          url: `${this.url}/files/other.silk`,
          voice_wav_url: `${this.url}${path}`,
        };
        return this.dispatch('C2C_MESSAGE_CREATE', {
          author: { id: openid, user_openid: openid },
          content: '',
          attachments: [attachment],
        });
      },
      sent: () => this.sent.filter((m) => m.target === `c2c:${openid}`),
    };
  }

  /** A group @-message from `member` (QQ strips nothing: the text follows the mention). */
  groupAt(group: string, member: string, text: string): string {
    return this.dispatch('GROUP_AT_MESSAGE_CREATE', {
      author: { id: member, member_openid: member },
      content: ` ${text}`,
      group_openid: group,
    });
  }

  /** A guild channel @-message. */
  channelAt(guild: string, channel: string, user: string, text: string): string {
    return this.dispatch('AT_MESSAGE_CREATE', {
      author: { id: user, username: 'guilduser', bot: false },
      content: `<@!bot${this.appId}> ${text}`,
      channel_id: channel,
      guild_id: guild,
      mentions: [{ id: `bot${this.appId}`, bot: true }],
    });
  }

  sentTo(target: string): QqSent[] {
    return this.sent.filter((m) => m.target === target);
  }

  /** What the bot uploaded with a media message (`media.file_info`). */
  uploaded(fileInfo: string): { name: string; bytes: Buffer } | undefined {
    return this.infos.get(fileInfo);
  }

  /** Resolves once a bot session is READY: QQ dispatches only to a connected session. */
  async online(): Promise<void> {
    if (this.sessions.size > 0) return;
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  /** Dispatches a message again, as the gateway does when it resends what a session may have missed. */
  redispatch(id: string): void {
    const frame = this.frames.get(id);
    if (!frame) throw new Error(`no message ${id} was dispatched`);
    for (const socket of this.sessions) socket.send(JSON.stringify(frame));
  }

  /** Drops every session and refuses new ones for `ms`. */
  async outage(ms: number): Promise<void> {
    await this.outages.for(ms, () => {
      for (const socket of this.sessions) socket.terminate();
    });
  }

  /** Messages are taken but their answers kept back until `release()`. */
  holdSendAnswers(): { held(): number; release(): void } {
    return this.answers.start();
  }

  /** Closes every gateway session as the platform does when it restarts (code 4009: session timed out). */
  dropSessions(): void {
    for (const socket of this.sessions) socket.close(4009, 'session timed out');
  }

  async close(): Promise<void> {
    for (const socket of this.sessions) socket.terminate();
    this.wss.close();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private dispatch(type: string, fields: Record<string, unknown>): string {
    const id = `ROBOT1.0_${hex(12)}`;
    const frame = {
      op: 0,
      s: ++this.seq,
      t: type,
      id: `${type}:${hex(8)}`,
      d: { id, timestamp: new Date().toISOString(), ...fields },
    };
    this.frames.set(id, frame);
    for (const socket of this.sessions) socket.send(JSON.stringify(frame));
    return id;
  }

  private accept(socket: WebSocket): void {
    socket.send(JSON.stringify({ op: 10, d: { heartbeat_interval: 30_000 } }));
    socket.on('message', (raw) => {
      const frame = JSON.parse(raw.toString()) as { op: number; d: { token?: string; intents?: number } };
      if (frame.op === 1) return socket.send(JSON.stringify({ op: 11 }));
      if (frame.op !== 2) return;
      this.identifies.push({ token: frame.d.token ?? '', intents: frame.d.intents ?? 0 });
      if (!this.tokens.has((frame.d.token ?? '').replace(/^QQBot /, ''))) return socket.close(4004, 'invalid token');
      this.connected++;
      this.sessions.add(socket);
      socket.on('close', () => this.sessions.delete(socket));
      for (const resolve of this.waiting.splice(0)) resolve();
      socket.send(
        JSON.stringify({
          op: 0,
          s: ++this.seq,
          t: 'READY',
          d: {
            version: 1,
            session_id: hex(8),
            user: { id: `bot${this.appId}`, username: 'tern-bot', bot: true },
            shard: [0, 1],
          },
        }),
      );
    });
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = chunks.length ? (JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>) : {};
    const json = (status: number, value: unknown): void =>
      void res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
    const path = (req.url ?? '').split('?')[0] ?? '';
    const file = this.files.get(path);
    if (file) return void res.writeHead(200, { 'content-type': 'audio/wav' }).end(file);
    if (req.method === 'POST' && path === '/app/getAppAccessToken') {
      if (body.appId !== this.appId || body.clientSecret !== this.appSecret)
        return json(200, { code: 100016, message: 'invalid appid or secret' });
      const token = `qqtoken${hex(12)}`;
      this.tokens.add(token);
      return json(200, { access_token: token, expires_in: '7200' });
    }
    const auth = String(req.headers.authorization ?? '');
    if (!this.tokens.has(auth.replace(/^QQBot /, '')) || req.headers['x-union-appid'] !== this.appId)
      return json(401, { code: 11244, message: 'token not exist or expire' });
    if (req.method === 'GET' && path === '/gateway')
      return json(200, { url: `${this.url.replace('http', 'ws')}/websocket` });
    if (req.method === 'GET' && path === '/users/@me')
      return json(200, { id: `bot${this.appId}`, username: 'tern-bot', avatar: '' });
    const target = /^\/(?:v2\/(users|groups)|(channels))\/([^/]+)\/(messages|files)$/.exec(path);
    if (req.method === 'POST' && target) {
      const kind = target[2] ? 'channel' : target[1] === 'users' ? 'c2c' : 'group';
      const where = `${kind}:${decodeURIComponent(target[3] ?? '')}`;
      if (target[4] === 'files') {
        this.uploads.push({ target: where, body });
        const info = `fileinfo-${hex(6)}`;
        const bytes = Buffer.from(String(body.file_data ?? ''), 'base64');
        this.infos.set(info, { name: String(body.file_name ?? ''), bytes });
        return json(200, { file_uuid: hex(8), file_info: info, ttl: 3600 });
      }
      const id = `BOTMSG${this.nextId++}`;
      this.posted.push({ id, target: where, body, at: Date.now() });
      if (body.msg_type === 6) return json(200, {});
      this.sent.push({ id, target: where, body, at: Date.now() });
      const answer = (): void => json(200, { id, timestamp: new Date().toISOString() });
      return this.answers.answer(answer);
    }
    json(404, { code: 404, message: `no route ${req.method} ${path}` });
  }
}
