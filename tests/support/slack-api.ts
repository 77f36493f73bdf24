// A loopback Slack for the channel contract: the Web API (`/api/<method>`, form or JSON bodies, Bearer tokens,
// 429 with Retry-After) and Socket Mode (apps.connections.open, the WebSocket's hello, events_api envelopes the app
// acknowledges), as @slack/bolt and @slack/web-api speak them.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Response } from 'undici';
import { WebSocketServer, type WebSocket } from 'ws';
import type { ContractEmulator, Conversation, Said, SentMessage } from '../channels/contract/emulator.js';

const TEAM = 'T0CONTRACT';
const BOT_USER = 'U0BOT';

interface Chat {
  channel: string;
  thread?: string;
  sent: SentMessage[];
}

let clock = 1_700_000_000;
const nextTs = (): string => `${++clock}.000100`;

export class SlackApi implements ContractEmulator {
  readonly botToken = `xoxb-contract-${Math.random().toString(36).slice(2, 10)}`;
  readonly appToken = `xapp-1-contract-${Math.random().toString(36).slice(2, 10)}`;
  private server!: Server;
  private wss!: WebSocketServer;
  private port = 0;
  private readonly sockets = new Set<WebSocket>();
  /** Envelopes no connection was there to take: Slack delivers them once the app is connected again. */
  private readonly missed: unknown[] = [];
  private readonly chats: Chat[] = [];
  private readonly files = new Map<string, Buffer>();
  private readonly uploads = new Map<string, { name: string; bytes?: Buffer }>();
  private limits: number[] = [];
  private limitedAt: number[] = [];
  private down = false;
  private opened = 0;
  private nextUser = 1;
  private envelope = 0;
  private hold: { answers: Array<() => void>; on: boolean } | undefined;

  static async start(): Promise<SlackApi> {
    const api = new SlackApi();
    api.server = createServer((req, res) => void api.handle(req, res));
    api.wss = new WebSocketServer({ noServer: true });
    api.server.on('upgrade', (req, socket, head) => {
      if (api.down) return void socket.destroy();
      api.wss.handleUpgrade(req, socket, head, (ws) => api.session(ws));
    });
    await new Promise<void>((resolve) => api.server.listen(0, '127.0.0.1', resolve));
    api.port = (api.server.address() as AddressInfo).port;
    return api;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  settings(): Record<string, unknown> {
    return { token: this.botToken, app_token: this.appToken, base_url: `${this.url}/api/` };
  }

  secrets(): string[] {
    return [this.botToken, this.appToken];
  }

  direct(name: string): Conversation {
    void name;
    const user = `U${String(this.nextUser++).padStart(4, '0')}`;
    const chat: Chat = { channel: `D${user}`, sent: [] };
    return this.conversation(chat, user, 'im');
  }

  thread(name: string): Conversation {
    void name;
    const user = `U${String(this.nextUser++).padStart(4, '0')}`;
    const chat: Chat = { channel: 'C0GENERAL', thread: nextTs(), sent: [] };
    return this.conversation(chat, user, 'channel');
  }

  rateLimitSends(count: number, retryAfterSeconds: number): void {
    for (let i = 0; i < count; i++) this.limits.push(retryAfterSeconds);
  }

  rateLimited(): number[] {
    return this.limitedAt;
  }

  async outage(ms: number): Promise<void> {
    this.down = true;
    for (const ws of this.sockets) ws.terminate();
    await new Promise((resolve) => setTimeout(resolve, ms));
    this.down = false;
  }

  connections(): number {
    return this.opened;
  }

  holdSendAnswers(): { held(): number; release(): void } {
    const hold = { answers: [] as Array<() => void>, on: true };
    this.hold = hold;
    return {
      held: () => hold.answers.length,
      release: () => {
        hold.on = false;
        for (const answer of hold.answers.splice(0)) answer();
      },
    };
  }

  async close(): Promise<void> {
    for (const ws of this.sockets) ws.terminate();
    this.wss.close();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private conversation(chat: Chat, user: string, channelType: string): Conversation {
    this.chats.push(chat);
    const said = new Map<string, Record<string, unknown>>();
    const post = (event: Record<string, unknown>): Said => {
      const ts = nextTs();
      const full = {
        type: 'message',
        channel: chat.channel,
        channel_type: channelType,
        user,
        ts,
        event_ts: ts,
        team: TEAM,
        ...(chat.thread ? { thread_ts: chat.thread } : {}),
        ...event,
      };
      said.set(ts, full);
      this.deliver(full, 0);
      return { id: ts };
    };
    const file = (name: string, mimetype: string, bytes: Buffer): Record<string, unknown> => {
      const id = `F${this.files.size + 1}`;
      this.files.set(id, bytes);
      const url = `${this.url}/files-pri/${TEAM}-${id}/${name}`;
      return {
        id,
        name,
        title: name,
        mimetype,
        filetype: name.split('.').pop(),
        size: bytes.length,
        url_private: url,
        url_private_download: `${url}?download=1`,
      };
    };
    return {
      sender: user,
      say: async (text) => post({ text }),
      sendImage: async (bytes, caption) =>
        post({ subtype: 'file_share', text: caption, files: [file('picture.png', 'image/png', bytes)] }),
      sendVoice: async (bytes) =>
        post({ subtype: 'file_share', text: '', files: [file('audio_message.ogg', 'audio/ogg', bytes)] }),
      redeliver: async (done) => {
        const event = said.get(done.id);
        if (!event) throw new Error(`no message ${done.id} to redeliver`);
        this.deliver(event, 1);
      },
      sent: () => chat.sent,
      // Slack has no typing indicator for bots outside assistant threads.
      typing: () => 0,
    };
  }

  private deliver(event: Record<string, unknown>, retry: number): void {
    const envelope = {
      envelope_id: `env-${++this.envelope}`,
      type: 'events_api',
      accepts_response_payload: false,
      retry_attempt: retry,
      retry_reason: retry ? 'timeout' : '',
      payload: {
        token: 'verification',
        team_id: TEAM,
        api_app_id: 'A0CONTRACT',
        type: 'event_callback',
        event_id: `Ev${String(event.ts).replace('.', '')}`,
        event_time: Math.floor(Date.now() / 1000),
        event,
        authorizations: [{ team_id: TEAM, user_id: BOT_USER, is_bot: true }],
      },
    };
    if (this.sockets.size === 0) return void this.missed.push(envelope);
    for (const ws of this.sockets) ws.send(JSON.stringify(envelope));
  }

  private session(ws: WebSocket): void {
    this.sockets.add(ws);
    ws.on('close', () => this.sockets.delete(ws));
    ws.send(
      JSON.stringify({
        type: 'hello',
        num_connections: this.sockets.size,
        debug_info: { host: 'contract', approximate_connection_time: 3600 },
        connection_info: { app_id: 'A0CONTRACT' },
      }),
    );
    for (const envelope of this.missed.splice(0)) ws.send(JSON.stringify(envelope));
  }

  private chatOf(channel: unknown, thread: unknown): Chat | undefined {
    return this.chats.find((c) => c.channel === channel && (c.thread ?? '') === String(thread ?? ''));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (this.down) return void req.socket.destroy();
    const url = new URL(req.url ?? '/', this.url);
    const body = await readBody(req);
    const download = /^\/files-pri\/[^/]+-(F\d+)\//.exec(url.pathname);
    if (download) {
      if (req.headers.authorization !== `Bearer ${this.botToken}`)
        return void res.writeHead(302, { location: '/signin' }).end();
      return void res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(this.files.get(download[1]!));
    }
    const upload = /^\/upload\/(F\w+)$/.exec(url.pathname);
    if (upload) {
      const pending = this.uploads.get(upload[1]!);
      // @slack/web-api posts the bytes as the multipart field `body`.
      if (pending)
        pending.bytes = ((body.body ?? body.file) as { bytes: Buffer } | undefined)?.bytes ?? (body.raw as Buffer);
      return void res.writeHead(200, { 'content-type': 'text/plain' }).end(`OK - ${pending?.bytes?.length ?? 0}`);
    }
    const method = url.pathname.replace(/^\/api\//, '');
    const token = (req.headers.authorization ?? '').replace(/^Bearer /, '') || String(body.token ?? '');
    if (method === 'apps.connections.open') {
      if (token !== this.appToken) return json(res, 200, { ok: false, error: 'invalid_auth' });
      this.opened++;
      return json(res, 200, { ok: true, url: `${this.url.replace('http', 'ws')}/link/?ticket=${this.opened}` });
    }
    if (token !== this.botToken) return json(res, 200, { ok: false, error: 'invalid_auth' });
    switch (method) {
      case 'auth.test':
        return json(res, 200, {
          ok: true,
          url: 'https://contract.slack.com/',
          team: 'Contract',
          user: 'contractbot',
          team_id: TEAM,
          user_id: BOT_USER,
          bot_id: 'B0BOT',
          is_enterprise_install: false,
        });
      case 'chat.postMessage':
        return this.post(body, res);
      case 'chat.update': {
        const message = this.chats.flatMap((c) => c.sent).find((m) => m.id === body.ts);
        if (!message) return json(res, 200, { ok: false, error: 'message_not_found' });
        message.edits.push(message.text);
        message.text = String(body.text);
        return json(res, 200, { ok: true, channel: body.channel, ts: body.ts, text: message.text });
      }
      case 'files.getUploadURLExternal': {
        const id = `F0UP${this.uploads.size + 1}`;
        this.uploads.set(id, { name: String(body.filename) });
        return json(res, 200, { ok: true, upload_url: `${this.url}/upload/${id}`, file_id: id });
      }
      case 'files.completeUploadExternal': {
        const files = JSON.parse(String(body.files)) as Array<{ id: string; title?: string }>;
        const chat = this.chatOf(body.channel_id, body.thread_ts);
        if (!chat) return json(res, 200, { ok: false, error: 'channel_not_found' });
        for (const file of files) {
          const uploaded = this.uploads.get(file.id);
          const caption = typeof body.initial_comment === 'string' ? body.initial_comment : undefined;
          chat.sent.push({
            id: file.id,
            text: caption ?? '',
            edits: [],
            at: Date.now(),
            file: {
              name: uploaded?.name ?? '',
              bytes: uploaded?.bytes ?? Buffer.alloc(0),
              ...(caption !== undefined ? { caption } : {}),
            },
          });
        }
        return json(res, 200, { ok: true, files: files.map((f) => ({ id: f.id, title: f.title ?? '' })) });
      }
      default:
        return json(res, 200, { ok: true });
    }
  }

  private post(body: Record<string, unknown>, res: ServerResponse): void {
    const limit = this.limits.shift();
    if (limit !== undefined) {
      this.limitedAt.push(Date.now());
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': String(limit) });
      return void res.end(JSON.stringify({ ok: false, error: 'ratelimited' }));
    }
    const chat = this.chatOf(body.channel, body.thread_ts);
    if (!chat) return json(res, 200, { ok: false, error: 'channel_not_found' });
    const message: SentMessage = { id: nextTs(), text: String(body.text ?? ''), edits: [], at: Date.now() };
    chat.sent.push(message);
    const answer = (): void =>
      json(res, 200, {
        ok: true,
        channel: chat.channel,
        ts: message.id,
        message: { type: 'message', text: message.text, user: BOT_USER, ts: message.id },
      });
    if (this.hold?.on) this.hold.answers.push(answer);
    else answer();
  }
}

function json(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

async function readBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks);
  const type = req.headers['content-type'] ?? '';
  if (type.includes('application/json'))
    return raw.length ? (JSON.parse(raw.toString('utf8')) as Record<string, unknown>) : {};
  if (type.includes('application/x-www-form-urlencoded'))
    return Object.fromEntries(new URLSearchParams(raw.toString('utf8')).entries());
  if (type.includes('multipart/form-data')) {
    const form = await new Response(raw, { headers: { 'content-type': type } }).formData();
    const out: Record<string, unknown> = {};
    for (const [key, value] of form.entries())
      out[key] =
        typeof value === 'string' ? value : { name: value.name, bytes: Buffer.from(await value.arrayBuffer()) };
    return out;
  }
  return { raw };
}
