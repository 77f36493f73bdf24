// A loopback OneBot v11 implementation (as NapCat and Lagrange serve it): a forward WebSocket that checks the access
// token (`Authorization: Bearer`), posts a lifecycle event on connect, then message events, and answers actions
// (`{action, params, echo}`) with `{status, retcode, data, echo}`. Files that users send are served over HTTP.
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { HeldAnswers, Outage } from '../contract/bad-days.js';

export interface BotMessage {
  id: number;
  /** `private:<user>` or `group:<group>`. */
  target: string;
  text: string;
  segments: Array<{ type: string; data: Record<string, unknown> }>;
  at: number;
}

export interface Said {
  id: number;
}

export class OneBotEmulator {
  readonly selfId = 10_000_001;
  readonly accessToken = `onebot-${randomBytes(8).toString('hex')}`;
  /** Every message the bot sent, in order. */
  readonly sent: BotMessage[] = [];
  /** Every action the bot called, in order. */
  readonly actions: string[] = [];
  private server!: Server;
  private readonly wss = new WebSocketServer({ noServer: true });
  private readonly sockets = new Set<WebSocket>();
  private readonly files = new Map<string, Buffer>();
  private readonly posted = new Map<number, Record<string, unknown>>();
  private readonly outages = new Outage();
  private connected = 0;
  private nextMessage = 5_000;
  private nextUser = 20_000;
  private failures: Array<{ retcode: number; wording: string }> = [];
  private waiting: Array<() => void> = [];
  private readonly answers = new HeldAnswers();

  static async start(): Promise<OneBotEmulator> {
    const emulator = new OneBotEmulator();
    emulator.server = createServer((req, res) => {
      const file = emulator.files.get(req.url ?? '');
      if (!file) return res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(file);
    });
    emulator.server.on('upgrade', (req, socket, head) => {
      if (emulator.outages.refusing) return socket.end('HTTP/1.1 503 Service Unavailable\r\n\r\n');
      if (req.headers.authorization !== `Bearer ${emulator.accessToken}`)
        return socket.end('HTTP/1.1 401 Unauthorized\r\n\r\n');
      emulator.wss.handleUpgrade(req, socket, head, (ws) => emulator.accept(ws));
    });
    await new Promise<void>((resolve) => emulator.server.listen(0, '127.0.0.1', resolve));
    return emulator;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  get url(): string {
    return `ws://127.0.0.1:${this.port}`;
  }

  /** How many times the bot connected with the right token. */
  connections(): number {
    return this.connected;
  }

  /** Resolves once a bot is connected: what is posted before would reach no one, as with a real implementation. */
  async online(): Promise<void> {
    if (this.sockets.size > 0) return;
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  /** A new QQ user, with helpers to talk to the bot privately. */
  user(nickname = 'user'): {
    id: number;
    say(text: string): Said;
    sendImage(bytes: Buffer, caption: string): Said;
    sendVoice(bytes: Buffer): Said;
    sent(): BotMessage[];
  } {
    const id = this.nextUser++;
    return {
      id,
      sendImage: (bytes, caption) => {
        const path = `/files/${randomBytes(6).toString('hex')}.png`;
        this.files.set(path, bytes);
        const image = { type: 'image', data: { file: path.slice(7), url: `http://127.0.0.1:${this.port}${path}` } };
        const text = caption ? [{ type: 'text', data: { text: caption } }] : [];
        return this.post({
          message_type: 'private',
          sub_type: 'friend',
          user_id: id,
          message: [image, ...text],
          raw_message: caption,
          sender: { user_id: id, nickname },
        });
      },
      say: (text) =>
        this.post({
          message_type: 'private',
          sub_type: 'friend',
          user_id: id,
          message: [{ type: 'text', data: { text } }],
          raw_message: text,
          sender: { user_id: id, nickname },
        }),
      sendVoice: (bytes) => {
        const path = `/files/${randomBytes(6).toString('hex')}.amr`;
        this.files.set(path, bytes);
        return this.post({
          message_type: 'private',
          sub_type: 'friend',
          user_id: id,
          message: [{ type: 'record', data: { file: path.slice(7), url: `http://127.0.0.1:${this.port}${path}` } }],
          raw_message: '',
          sender: { user_id: id, nickname },
        });
      },
      sent: () => this.sent.filter((m) => m.target === `private:${id}`),
    };
  }

  /** A message in a group: `segments` as the implementation posts them, or a CQ-coded string. */
  inGroup(groupId: number, userId: number, message: unknown): Said {
    const raw = typeof message === 'string' ? message : '';
    return this.post({
      message_type: 'group',
      sub_type: 'normal',
      group_id: groupId,
      user_id: userId,
      message,
      raw_message: raw,
      sender: { user_id: userId, nickname: 'member', card: '' },
    });
  }

  sentTo(target: string): BotMessage[] {
    return this.sent.filter((m) => m.target === target);
  }

  /** The next sends fail as the implementation fails them (e.g. retcode 100, a muted group). */
  failSends(count: number, retcode: number, wording: string): void {
    for (let i = 0; i < count; i++) this.failures.push({ retcode, wording });
  }

  /** Posts a message event again, as an implementation does that replays what it buffered after a reconnect. */
  repost(said: Said): void {
    const event = this.posted.get(said.id);
    if (!event) throw new Error(`no message ${said.id} was posted`);
    for (const socket of this.sockets) socket.send(JSON.stringify(event));
  }

  /** Drops every connection and refuses new ones for `ms`. */
  async outage(ms: number): Promise<void> {
    await this.outages.for(ms, () => {
      for (const socket of this.sockets) socket.terminate();
    });
  }

  /** Sends are carried out but their answers kept back until `release()`. */
  holdSendAnswers(): { held(): number; release(): void } {
    return this.answers.start();
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.terminate();
    this.wss.close();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private post(fields: Record<string, unknown>): Said {
    const id = this.nextMessage++;
    const event = {
      time: Math.floor(Date.now() / 1000),
      self_id: this.selfId,
      post_type: 'message',
      message_id: id,
      font: 0,
      ...fields,
    };
    this.posted.set(id, event);
    for (const socket of this.sockets) socket.send(JSON.stringify(event));
    return { id };
  }

  private accept(socket: WebSocket): void {
    this.connected++;
    this.sockets.add(socket);
    for (const resolve of this.waiting.splice(0)) resolve();
    socket.on('close', () => this.sockets.delete(socket));
    socket.send(
      JSON.stringify({
        time: Math.floor(Date.now() / 1000),
        self_id: this.selfId,
        post_type: 'meta_event',
        meta_event_type: 'lifecycle',
        sub_type: 'connect',
      }),
    );
    socket.on('message', (raw) => {
      const call = JSON.parse(raw.toString()) as { action: string; params: Record<string, unknown>; echo?: string };
      this.actions.push(call.action);
      const answer = (data: unknown, status = 'ok', retcode = 0, wording?: string): void => {
        socket.send(
          JSON.stringify({ status, retcode, data, ...(wording ? { msg: wording, wording } : {}), echo: call.echo }),
        );
      };
      switch (call.action) {
        case 'get_login_info':
          return answer({ user_id: this.selfId, nickname: 'tern-bot' });
        case 'send_private_msg':
        case 'send_group_msg': {
          const failure = this.failures.shift();
          if (failure) return answer(null, 'failed', failure.retcode, failure.wording);
          const segments = call.params.message as BotMessage['segments'];
          const target =
            call.action === 'send_group_msg'
              ? `group:${String(call.params.group_id)}`
              : `private:${String(call.params.user_id)}`;
          const id = this.nextMessage++;
          const text = segments
            .filter((s) => s.type === 'text')
            .map((s) => String(s.data.text))
            .join('');
          this.sent.push({ id, target, text, segments, at: Date.now() });
          return this.answers.answer(() => answer({ message_id: id }));
        }
        default:
          return answer(null, 'failed', 1404, `unknown action ${call.action}`);
      }
    });
  }
}
