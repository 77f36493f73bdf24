// A loopback Discord for the channel contract: the REST API (`/api/v10`: gateway/bot, channels, messages with
// multipart uploads, edits, typing, 429 with retry_after, interaction callbacks) and the gateway WebSocket (HELLO,
// IDENTIFY, READY, GUILD_CREATE, heartbeats, MESSAGE_CREATE and INTERACTION_CREATE dispatches), as `@discordjs/ws` and
// `@discordjs/rest` speak them.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Response } from 'undici';
import { WebSocketServer, type WebSocket } from 'ws';
import type { ContractEmulator, Conversation, Said, SentMessage } from '../channels/contract/emulator.js';

const BOT = {
  id: '900000000000000001',
  username: 'contractbot',
  discriminator: '0',
  global_name: null,
  avatar: null,
  bot: true,
};
const GUILD = '910000000000000001';
const TEXT_CHANNEL = '920000000000000001';

interface Chat {
  channel: Record<string, unknown>;
  sent: SentMessage[];
  typing: number;
}

let snowflake = 930_000_000_000_000_000n;
const nextId = (): string => String(++snowflake);

export class DiscordApi implements ContractEmulator {
  readonly token = `MTA.contract-discord-${Math.random().toString(36).slice(2, 10)}`;
  private server!: Server;
  private wss!: WebSocketServer;
  private port = 0;
  /** Sockets with an identified session: dispatches go to them. */
  private readonly sockets = new Set<WebSocket>();
  /** Dispatches no session was there to take: replayed to the next one, as a resumed session gets what it missed. */
  private readonly missed: Array<[string, unknown]> = [];
  private readonly chats = new Map<string, Chat>();
  private readonly files = new Map<string, Buffer>();
  private readonly threads: Array<Record<string, unknown>> = [];
  private seq = 0;
  private limits: number[] = [];
  private limitedAt: number[] = [];
  private down = false;
  private opened = 0;
  private hold: { answers: Array<() => void>; on: boolean } | undefined;
  /** Each conversation's button press: an INTERACTION_CREATE of a button with that custom id. */
  private readonly presses = new WeakMap<Conversation, (customId: string) => void>();
  /** The interaction callbacks the bot posted, in order: `{ id, type }`. */
  readonly callbacks: Array<{ id: string; type: unknown }> = [];

  static async start(): Promise<DiscordApi> {
    const api = new DiscordApi();
    api.server = createServer((req, res) => void api.handle(req, res));
    api.wss = new WebSocketServer({ noServer: true });
    api.server.on('upgrade', (req, socket, head) => {
      if (api.down) return void socket.destroy();
      api.opened++;
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
    return { token: this.token, base_url: `${this.url}/api` };
  }

  secrets(): string[] {
    return [this.token];
  }

  direct(name: string): Conversation {
    const user = { id: nextId(), username: name, discriminator: '0', global_name: name, avatar: null, bot: false };
    const channel = { id: nextId(), type: 1, recipients: [user], last_message_id: null };
    return this.conversation(channel, user, undefined);
  }

  thread(name: string): Conversation {
    const user = { id: nextId(), username: name, discriminator: '0', global_name: name, avatar: null, bot: false };
    const channel = {
      id: nextId(),
      type: 11,
      guild_id: GUILD,
      parent_id: TEXT_CHANNEL,
      name: `thread of ${name}`,
      owner_id: user.id,
      thread_metadata: {
        archived: false,
        auto_archive_duration: 60,
        locked: false,
        archive_timestamp: new Date().toISOString(),
      },
      message_count: 0,
      member_count: 1,
      rate_limit_per_user: 0,
      flags: 0,
    };
    this.threads.push(channel);
    return this.conversation(channel, user, GUILD);
  }

  rateLimitSends(count: number, retryAfterSeconds: number): void {
    for (let i = 0; i < count; i++) this.limits.push(retryAfterSeconds);
  }

  rateLimited(): number[] {
    return this.limitedAt;
  }

  async outage(ms: number): Promise<void> {
    this.down = true;
    for (const ws of this.wss.clients) ws.terminate();
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

  /** The user of `chat` presses a button of the bot's whose custom id is `customId`. */
  press(chat: Conversation, customId: string): void {
    const press = this.presses.get(chat);
    if (!press) throw new Error('not a conversation of this emulator');
    press(customId);
  }

  async close(): Promise<void> {
    for (const ws of this.wss.clients) ws.terminate();
    this.wss.close();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private conversation(
    channel: Record<string, unknown>,
    author: Record<string, unknown>,
    guild: string | undefined,
  ): Conversation {
    const chat: Chat = { channel, sent: [], typing: 0 };
    this.chats.set(String(channel.id), chat);
    const said = new Map<string, Record<string, unknown>>();
    const dispatch = (content: string, attachments: Array<Record<string, unknown>> = [], flags = 0): Said => {
      const message = {
        id: nextId(),
        channel_id: channel.id,
        channel_type: channel.type,
        ...(guild
          ? {
              guild_id: guild,
              member: { roles: [], joined_at: new Date().toISOString(), deaf: false, mute: false, flags: 0 },
            }
          : {}),
        author,
        content,
        timestamp: new Date().toISOString(),
        edited_timestamp: null,
        tts: false,
        mention_everyone: false,
        mentions: [],
        mention_roles: [],
        attachments,
        embeds: [],
        pinned: false,
        type: 0,
        flags,
      };
      said.set(message.id, message);
      this.broadcast('MESSAGE_CREATE', message);
      return { id: message.id };
    };
    const attachment = (
      name: string,
      type: string,
      bytes: Buffer,
      extra: Record<string, unknown> = {},
    ): Record<string, unknown> => {
      const id = nextId();
      this.files.set(id, bytes);
      const url = `${this.url}/attachments/${id}/${name}`;
      return { id, filename: name, size: bytes.length, url, proxy_url: url, content_type: type, ...extra };
    };
    const conversation: Conversation = {
      sender: String(author.id),
      say: async (text) => dispatch(text),
      sendImage: async (bytes, caption) =>
        dispatch(caption, [attachment('picture.png', 'image/png', bytes, { width: 90, height: 90 })]),
      // A voice message: an Ogg attachment with its duration and waveform, flag IS_VOICE_MESSAGE (1 << 13).
      sendVoice: async (bytes) =>
        dispatch(
          '',
          [attachment('voice-message.ogg', 'audio/ogg', bytes, { duration_secs: 2, waveform: 'AAAA' })],
          1 << 13,
        ),
      redeliver: async (done) => {
        const message = said.get(done.id);
        if (!message) throw new Error(`no message ${done.id} to redeliver`);
        this.broadcast('MESSAGE_CREATE', message);
      },
      sent: () => chat.sent,
      typing: () => chat.typing,
    };
    this.presses.set(conversation, (customId) =>
      this.broadcast('INTERACTION_CREATE', {
        id: nextId(),
        application_id: BOT.id,
        type: 3,
        token: `interaction-token-${nextId()}`,
        version: 1,
        channel_id: channel.id,
        channel: { id: channel.id, type: channel.type },
        ...(guild ? { guild_id: guild, member: { user: author, roles: [], permissions: '0' } } : { user: author }),
        data: { custom_id: customId, component_type: 2 },
        message: { id: nextId(), channel_id: channel.id, author: BOT, content: 'choose', components: [] },
        app_permissions: '0',
        locale: 'en-US',
        entitlements: [],
        authorizing_integration_owners: {},
      }),
    );
    return conversation;
  }

  private broadcast(type: string, data: unknown): void {
    if (this.sockets.size === 0) return void this.missed.push([type, data]);
    for (const ws of this.sockets) ws.send(JSON.stringify({ op: 0, t: type, s: ++this.seq, d: data }));
  }

  private session(ws: WebSocket): void {
    ws.on('close', () => this.sockets.delete(ws));
    ws.send(JSON.stringify({ op: 10, d: { heartbeat_interval: 41_250 } }));
    ws.on('message', (raw) => {
      const frame = JSON.parse(raw.toString()) as { op: number; d: unknown };
      if (frame.op === 1) return ws.send(JSON.stringify({ op: 11 }));
      if (frame.op === 2 || frame.op === 6) {
        const token = frame.op === 2 ? (frame.d as { token: string }).token : (frame.d as { token: string }).token;
        if (token !== this.token && token !== `Bot ${this.token}`) return ws.close(4004, 'Authentication failed.');
        // A resume is answered with a fresh session, as Discord does when it cannot resume.
        if (frame.op === 6) return ws.send(JSON.stringify({ op: 9, d: false }));
        ws.send(
          JSON.stringify({
            op: 0,
            t: 'READY',
            s: ++this.seq,
            d: {
              v: 10,
              user: BOT,
              guilds: [{ id: GUILD, unavailable: true }],
              session_id: `session${this.opened}`,
              resume_gateway_url: this.url.replace('http', 'ws'),
              application: { id: BOT.id, flags: 0 },
              shard: [0, 1],
              private_channels: [],
            },
          }),
        );
        ws.send(JSON.stringify({ op: 0, t: 'GUILD_CREATE', s: ++this.seq, d: this.guild() }));
        this.sockets.add(ws);
        for (const [type, data] of this.missed.splice(0)) this.broadcast(type, data);
      }
    });
  }

  private guild(): Record<string, unknown> {
    return {
      id: GUILD,
      name: 'Contract',
      icon: null,
      owner_id: '1',
      unavailable: false,
      member_count: 2,
      large: false,
      joined_at: new Date().toISOString(),
      afk_timeout: 300,
      verification_level: 0,
      default_message_notifications: 0,
      explicit_content_filter: 0,
      features: [],
      mfa_level: 0,
      premium_tier: 0,
      preferred_locale: 'en-US',
      nsfw_level: 0,
      system_channel_flags: 0,
      roles: [
        {
          id: GUILD,
          name: '@everyone',
          permissions: '1071698660929',
          position: 0,
          color: 0,
          hoist: false,
          managed: false,
          mentionable: false,
          flags: 0,
        },
      ],
      emojis: [],
      stickers: [],
      members: [],
      presences: [],
      voice_states: [],
      stage_instances: [],
      guild_scheduled_events: [],
      channels: [
        {
          id: TEXT_CHANNEL,
          type: 0,
          guild_id: GUILD,
          name: 'general',
          position: 0,
          permission_overwrites: [],
          nsfw: false,
          parent_id: null,
        },
      ],
      threads: this.threads,
    };
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (this.down) return void req.socket.destroy();
    const url = new URL(req.url ?? '/', this.url);
    const attachment = /^\/attachments\/(\d+)\//.exec(url.pathname);
    if (attachment) {
      const bytes = this.files.get(attachment[1]!);
      return void (bytes
        ? res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(bytes)
        : res.writeHead(404).end());
    }
    // An interaction is answered with its own token, without the bot's.
    const callback = /^\/api\/v\d+\/interactions\/(\d+)\/[\w-]+\/callback$/.exec(url.pathname);
    if (callback && req.method === 'POST') {
      this.callbacks.push({ id: callback[1]!, type: (await readBody(req)).type });
      return void res.writeHead(204).end();
    }
    if (req.headers.authorization !== `Bot ${this.token}`)
      return json(res, 401, { message: '401: Unauthorized', code: 0 });
    const path = url.pathname.replace(/^\/api\/v\d+/, '');
    const body = await readBody(req);
    if (path === '/gateway/bot') {
      return json(res, 200, {
        url: this.url.replace('http', 'ws'),
        shards: 1,
        session_start_limit: { total: 1000, remaining: 1000, reset_after: 0, max_concurrency: 1 },
      });
    }
    if (path === '/users/@me') return json(res, 200, BOT);
    const channelCall = /^\/channels\/(\d+)(\/messages(?:\/(\d+))?|\/typing)?$/.exec(path);
    const chat = channelCall ? this.chats.get(channelCall[1]!) : undefined;
    if (!channelCall || !chat) return json(res, 404, { message: 'Unknown Channel', code: 10003 });
    const [, , what, messageId] = channelCall;
    if (!what && req.method === 'GET') return json(res, 200, chat.channel);
    if (what === '/typing') {
      chat.typing++;
      return void res.writeHead(204).end();
    }
    if (what === '/messages' && req.method === 'POST') return this.send(chat, body, res);
    const message = chat.sent.find((m) => m.id === messageId);
    if (!message) return json(res, 404, { message: 'Unknown Message', code: 10008 });
    if (req.method === 'PATCH') {
      message.edits.push(message.text);
      message.text = String(body.content ?? message.text);
    }
    return json(res, 200, this.wire(chat, message));
  }

  private send(chat: Chat, body: Record<string, unknown>, res: ServerResponse): void {
    const limit = this.limits.shift();
    if (limit !== undefined) {
      this.limitedAt.push(Date.now());
      res.writeHead(429, {
        'content-type': 'application/json',
        'retry-after': String(limit),
        'x-ratelimit-scope': 'user',
        'x-ratelimit-global': 'false',
      });
      return void res.end(
        JSON.stringify({ message: 'You are being rate limited.', retry_after: limit, global: false }),
      );
    }
    const payload =
      typeof body.payload_json === 'string' ? (JSON.parse(body.payload_json) as Record<string, unknown>) : body;
    const upload = body['files[0]'] as { name: string; bytes: Buffer } | undefined;
    const content = typeof payload.content === 'string' ? payload.content : '';
    const message: SentMessage = {
      id: nextId(),
      text: content,
      edits: [],
      at: Date.now(),
      ...(upload ? { file: { name: upload.name, bytes: upload.bytes, ...(content ? { caption: content } : {}) } } : {}),
    };
    chat.sent.push(message);
    const answer = (): void => json(res, 200, this.wire(chat, message));
    if (this.hold?.on) this.hold.answers.push(answer);
    else answer();
  }

  private wire(chat: Chat, message: SentMessage): Record<string, unknown> {
    return {
      id: message.id,
      channel_id: chat.channel.id,
      ...(chat.channel.guild_id ? { guild_id: chat.channel.guild_id } : {}),
      author: BOT,
      content: message.text,
      timestamp: new Date(message.at).toISOString(),
      edited_timestamp: message.edits.length ? new Date().toISOString() : null,
      tts: false,
      mention_everyone: false,
      mentions: [],
      mention_roles: [],
      attachments: [],
      embeds: [],
      pinned: false,
      type: 0,
      flags: 0,
      components: [],
    };
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
  if (type.includes('multipart/form-data')) {
    const form = await new Response(raw, { headers: { 'content-type': type } }).formData();
    const out: Record<string, unknown> = {};
    for (const [key, value] of form.entries())
      out[key] =
        typeof value === 'string' ? value : { name: value.name, bytes: Buffer.from(await value.arrayBuffer()) };
    return out;
  }
  return {};
}
