// A loopback Matrix homeserver for the channel contract: the client-server API endpoints matrix-js-sdk uses (versions,
// whoami, filter, push rules, the /sync long poll, join, send, typing, media upload and authenticated download), with
// M_LIMIT_EXCEEDED answers (retry_after_ms) and transactions idempotent by txnId as the spec has them.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { ContractEmulator, Conversation, Said, SentMessage } from '../channels/contract/emulator.js';

export const BOT_USER = '@tern:loopback.test';
const SERVER = 'loopback.test';

interface Room {
  id: string;
  members: string[];
  encrypted: boolean;
  /** The bot is invited, not yet joined. */
  invitedBy?: string;
  joined: boolean;
  /** The stream position at which the bot joined: a sync from before it carries the room's state. */
  joinedAt: number;
  sent: SentMessage[];
  /** Per thread root (or '' for the room's main timeline): the bot's messages there. */
  threads: Map<string, SentMessage[]>;
  typing: number;
}

interface TimelineEvent {
  pos: number;
  room: string;
  event: Record<string, unknown>;
}

const hex = (bytes: number): string => randomBytes(bytes).toString('hex');

export class MatrixHomeserver implements ContractEmulator {
  readonly accessToken = `syt_${hex(16)}`;
  private server!: Server;
  private port = 0;
  private readonly rooms = new Map<string, Room>();
  private readonly events: TimelineEvent[] = [];
  private readonly media = new Map<string, { bytes: Buffer; type: string }>();
  /** txnId → event id: a repeated PUT with the same txnId is the same send. */
  private readonly txns = new Map<string, string>();
  private readonly waiting = new Set<() => void>();
  private readonly sockets = new Set<Socket>();
  private limits: number[] = [];
  private limitedAt: number[] = [];
  private hold: { answers: Array<() => void>; on: boolean } | undefined;
  private down = false;
  private whoamis = 0;
  /** The `/sync` long polls held open now, waiting for news. */
  get heldSyncs(): number {
    return this.waiting.size;
  }

  /** Every request's method and path, for tests that check what the bot called. */
  readonly calls: string[] = [];

  static async start(): Promise<MatrixHomeserver> {
    const hs = new MatrixHomeserver();
    hs.server = createServer((req, res) => void hs.handle(req, res));
    hs.server.on('connection', (socket: Socket) => {
      hs.sockets.add(socket);
      socket.on('close', () => hs.sockets.delete(socket));
    });
    await new Promise<void>((resolve) => hs.server.listen(0, '127.0.0.1', resolve));
    hs.port = (hs.server.address() as AddressInfo).port;
    return hs;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  settings(): Record<string, unknown> {
    return {
      homeserver: this.url,
      user_id: BOT_USER,
      access_token: this.accessToken,
      device_id: 'TERNDEVICE',
      join_on_invite: true,
    };
  }

  secrets(): string[] {
    return [this.accessToken];
  }

  /** A room the bot shares with one user: a direct chat. */
  direct(name: string, options: { encrypted?: boolean; invite?: boolean } = {}): Conversation {
    const user = `@${name}:${SERVER}`;
    const room = this.room([user, BOT_USER], options);
    return this.conversation(room, user, '');
  }

  /** A thread in a room of three, rooted in a message of the user; its messages mention the bot. */
  thread(name: string): Conversation {
    const user = `@${name}:${SERVER}`;
    const room = this.room([user, '@someone:loopback.test', BOT_USER], {});
    const root = this.push(room.id, {
      type: 'm.room.message',
      sender: user,
      content: { msgtype: 'm.text', body: 'a thread starts here' },
    });
    return this.conversation(room, user, root);
  }

  /** Invites the bot to a fresh direct room (encrypted or not); returns the room id. */
  invite(name: string, encrypted = false): { room: string; conversation: Conversation } {
    const user = `@${name}:${SERVER}`;
    const room = this.room([user], { encrypted, invite: true });
    room.invitedBy = user;
    this.wake();
    return { room: room.id, conversation: this.conversation(room, user, '') };
  }

  isJoined(room: string): boolean {
    return this.rooms.get(room)?.joined ?? false;
  }

  /** What the bot sent to a room, threads included. */
  sentTo(room: string): SentMessage[] {
    return this.rooms.get(room)?.sent ?? [];
  }

  rateLimitSends(count: number, retryAfterSeconds: number): void {
    this.limits.push(...Array.from({ length: count }, () => retryAfterSeconds));
  }

  rateLimited(): number[] {
    return this.limitedAt;
  }

  async outage(ms: number): Promise<void> {
    this.down = true;
    for (const socket of this.sockets) socket.destroy();
    await new Promise((resolve) => setTimeout(resolve, ms));
    this.down = false;
  }

  connections(): number {
    return this.whoamis;
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
    for (const wake of this.waiting) wake();
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private room(members: string[], options: { encrypted?: boolean; invite?: boolean }): Room {
    const id = `!${hex(6)}:${SERVER}`;
    const room: Room = {
      id,
      members,
      encrypted: options.encrypted ?? false,
      joined: !options.invite,
      joinedAt: 0,
      sent: [],
      threads: new Map(),
      typing: 0,
    };
    this.rooms.set(id, room);
    return room;
  }

  private conversation(room: Room, user: string, threadRoot: string): Conversation {
    const relates = threadRoot
      ? { 'm.relates_to': { rel_type: 'm.thread', event_id: threadRoot, is_falling_back: true } }
      : {};
    const mentions = threadRoot ? { 'm.mentions': { user_ids: [BOT_USER] } } : {};
    const say = (content: Record<string, unknown>): Said => {
      const type = room.encrypted ? 'm.room.encrypted' : 'm.room.message';
      const body = room.encrypted
        ? { algorithm: 'm.megolm.v1.aes-sha2', ciphertext: 'AwgAEnB…', session_id: hex(8) }
        : { ...content, ...relates, ...mentions };
      return { id: this.push(room.id, { type, sender: user, content: body }) };
    };
    const upload = (bytes: Buffer, type: string): string => {
      const id = hex(8);
      this.media.set(id, { bytes, type });
      return `mxc://${SERVER}/${id}`;
    };
    return {
      sender: user,
      say: async (text) => say({ msgtype: 'm.text', body: text }),
      sendImage: async (bytes, caption) => {
        const url = upload(bytes, 'image/png');
        const named = caption ? { body: caption, filename: 'picture.png' } : { body: 'picture.png' };
        return say({ msgtype: 'm.image', url, ...named, info: { mimetype: 'image/png', size: bytes.length } });
      },
      sendVoice: async (bytes) => {
        const url = upload(bytes, 'audio/ogg');
        return say({
          msgtype: 'm.audio',
          url,
          body: 'Voice message',
          'org.matrix.msc3245.voice': {},
          info: { mimetype: 'audio/ogg', size: bytes.length },
        });
      },
      redeliver: async (said) => {
        const again = this.events.find((e) => e.event.event_id === said.id);
        if (again) this.events.push({ ...again, pos: this.events.length + 1 });
        this.wake();
      },
      sent: () => room.threads.get(threadRoot) ?? [],
      typing: () => room.typing,
    };
  }

  private push(room: string, event: Record<string, unknown>): string {
    const id = `$${hex(12)}`;
    this.events.push({
      pos: this.events.length + 1,
      room,
      event: { ...event, event_id: id, origin_server_ts: Date.now() },
    });
    this.wake();
    return id;
  }

  private wake(): void {
    for (const wake of [...this.waiting]) wake();
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.url);
    const path = decodeURIComponent(url.pathname);
    this.calls.push(`${req.method} ${path}`);
    if (this.down) {
      req.socket.destroy();
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks);
    const json = (status: number, body: unknown): void => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (path === '/_matrix/client/versions')
      return json(200, { versions: ['v1.1', 'v1.5', 'v1.11'], unstable_features: {} });
    if (req.headers.authorization !== `Bearer ${this.accessToken}`) {
      return json(401, { errcode: 'M_UNKNOWN_TOKEN', error: 'Invalid access token passed.' });
    }
    const body = (): Record<string, unknown> =>
      raw.length ? (JSON.parse(raw.toString('utf8')) as Record<string, unknown>) : {};
    let m: RegExpExecArray | null;
    if (path === '/_matrix/client/v3/account/whoami') {
      this.whoamis++;
      return json(200, { user_id: BOT_USER, device_id: 'TERNDEVICE' });
    }
    if (path === '/_matrix/client/v3/pushrules/')
      return json(200, { global: { override: [], content: [], room: [], sender: [], underride: [] } });
    if ((m = /^\/_matrix\/client\/v3\/user\/[^/]+\/filter(\/.*)?$/.exec(path)))
      return json(200, m[1] ? {} : { filter_id: '1' });
    if (path === '/_matrix/client/v3/capabilities') return json(200, { capabilities: {} });
    if (path === '/_matrix/client/v3/sync') return this.sync(url, req, json);
    if ((m = /^\/_matrix\/client\/v3\/(?:join|rooms)\/([^/]+)(?:\/join)?$/.exec(path)) && req.method === 'POST') {
      const room = this.rooms.get(m[1]!);
      if (!room) return json(404, { errcode: 'M_NOT_FOUND', error: 'No such room' });
      room.joined = true;
      room.joinedAt = this.events.length;
      room.members.push(BOT_USER);
      this.push(room.id, {
        type: 'm.room.member',
        state_key: BOT_USER,
        sender: BOT_USER,
        content: { membership: 'join' },
      });
      return json(200, { room_id: room.id });
    }
    if ((m = /^\/_matrix\/client\/v3\/rooms\/([^/]+)\/leave$/.exec(path))) {
      const room = this.rooms.get(m[1]!);
      if (room) Object.assign(room, { joined: false, invitedBy: undefined });
      return json(200, {});
    }
    if ((m = /^\/_matrix\/client\/v3\/rooms\/([^/]+)\/typing\/([^/]+)$/.exec(path))) {
      const room = this.rooms.get(m[1]!);
      if (room && body().typing === true) room.typing++;
      return json(200, {});
    }
    if (
      (m = /^\/_matrix\/client\/v3\/rooms\/([^/]+)\/send\/m\.room\.message\/([^/]+)$/.exec(path)) &&
      req.method === 'PUT'
    ) {
      return this.send(m[1]!, m[2]!, body(), res, json);
    }
    if ((m = /^\/_matrix\/client\/v3\/rooms\/([^/]+)\/receipt\//.exec(path))) return json(200, {});
    if (path === '/_matrix/media/v3/upload' && req.method === 'POST') {
      const id = hex(8);
      this.media.set(id, { bytes: raw, type: String(req.headers['content-type'] ?? 'application/octet-stream') });
      return json(200, { content_uri: `mxc://${SERVER}/${id}` });
    }
    if ((m = /^\/_matrix\/client\/v1\/media\/download\/[^/]+\/([^/]+)/.exec(path))) {
      const file = this.media.get(m[1]!);
      if (!file) return json(404, { errcode: 'M_NOT_FOUND', error: 'Not found' });
      res.writeHead(200, { 'content-type': file.type });
      res.end(file.bytes);
      return;
    }
    json(404, { errcode: 'M_UNRECOGNIZED', error: 'Unrecognized request' });
  }

  private send(
    roomId: string,
    txn: string,
    content: Record<string, unknown>,
    _res: ServerResponse,
    json: (s: number, b: unknown) => void,
  ): void {
    const room = this.rooms.get(roomId);
    if (!room?.joined) return json(403, { errcode: 'M_FORBIDDEN', error: 'You are not in this room' });
    const wait = this.limits.shift();
    if (wait !== undefined) {
      this.limitedAt.push(Date.now());
      return json(429, { errcode: 'M_LIMIT_EXCEEDED', error: 'Too Many Requests', retry_after_ms: wait * 1000 });
    }
    const known = this.txns.get(txn);
    if (known) return json(200, { event_id: known });
    const id = `$${hex(12)}`;
    this.txns.set(txn, id);
    const relation = content['m.relates_to'] as { rel_type?: string; event_id?: string } | undefined;
    const shown = (c: Record<string, unknown>): string =>
      String(c.format === 'org.matrix.custom.html' ? c.formatted_body : c.body);
    if (relation?.rel_type === 'm.replace') {
      const target = room.sent.find((s) => s.id === relation.event_id);
      const next = content['m.new_content'] as Record<string, unknown> | undefined;
      if (target && next) {
        target.edits.push(target.text);
        target.text = shown(next);
      }
    } else {
      const thread = relation?.rel_type === 'm.thread' ? (relation.event_id ?? '') : '';
      const file = typeof content.url === 'string' ? this.media.get(content.url.split('/').pop()!) : undefined;
      const filename = typeof content.filename === 'string' ? content.filename : String(content.body);
      const message: SentMessage = {
        id,
        text: file ? '' : shown(content),
        edits: [],
        ...(content.format ? { format: String(content.format) } : {}),
        ...(file
          ? {
              file: {
                name: filename,
                bytes: file.bytes,
                ...(content.filename && content.body !== content.filename ? { caption: String(content.body) } : {}),
              },
            }
          : {}),
        at: Date.now(),
      };
      room.sent.push(message);
      const list = room.threads.get(thread) ?? [];
      list.push(message);
      room.threads.set(thread, list);
    }
    this.push(roomId, { type: 'm.room.message', sender: BOT_USER, content });
    const answer = (): void => json(200, { event_id: id });
    if (this.hold?.on) this.hold.answers.push(answer);
    else answer();
  }

  private async sync(url: URL, req: IncomingMessage, json: (s: number, b: unknown) => void): Promise<void> {
    // A homeserver's token is opaque (`s<position>` here, as Synapse's start with `s`): a sync that carries one,
    // even the one handed out before any event, is a long poll; only the first sync, without one, answers at once.
    const token = url.searchParams.get('since');
    const initial = token === null;
    const since = initial ? 0 : Number(token.replace(/^s/, ''));
    const timeout = Number(url.searchParams.get('timeout') ?? '0');
    const pending = (): boolean =>
      this.events.some((e) => e.pos > since) || [...this.rooms.values()].some((r) => r.invitedBy && !r.joined);
    if (!initial && !pending() && timeout > 0) {
      await new Promise<void>((resolve) => {
        // The client keeps its connection for the next sync: a listener left on it would pile up, one a sync.
        const done = (): void => {
          clearTimeout(timer);
          this.waiting.delete(done);
          req.socket.off('close', done);
          resolve();
        };
        const timer = setTimeout(done, Math.min(timeout, 30_000));
        this.waiting.add(done);
        req.socket.once('close', done);
      });
    }
    if (req.socket.destroyed) return;
    const join: Record<string, unknown> = {};
    const invite: Record<string, unknown> = {};
    for (const room of this.rooms.values()) {
      if (!room.joined) {
        if (room.invitedBy) invite[room.id] = { invite_state: { events: this.stripped(room) } };
        continue;
      }
      const timeline = this.events.filter((e) => e.room === room.id && e.pos > since).map((e) => e.event);
      if (!initial && timeline.length === 0) continue;
      join[room.id] = {
        summary: { 'm.joined_member_count': room.members.length, 'm.invited_member_count': 0 },
        state: { events: since > room.joinedAt ? [] : this.state(room) },
        timeline: { events: timeline, limited: false },
        ephemeral: { events: [] },
        account_data: { events: [] },
      };
    }
    json(200, {
      next_batch: `s${this.events.length}`,
      rooms: { join, invite, leave: {} },
      account_data: { events: [] },
      to_device: { events: [] },
    });
  }

  private state(room: Room): Array<Record<string, unknown>> {
    const at = Date.now();
    const base = (
      type: string,
      key: string,
      sender: string,
      content: Record<string, unknown>,
    ): Record<string, unknown> => ({
      type,
      state_key: key,
      sender,
      content,
      event_id: `$${hex(12)}`,
      origin_server_ts: at,
    });
    return [
      base('m.room.create', '', room.members[0]!, { creator: room.members[0] }),
      ...room.members.map((member) => base('m.room.member', member, member, { membership: 'join' })),
      ...(room.encrypted
        ? [base('m.room.encryption', '', room.members[0]!, { algorithm: 'm.megolm.v1.aes-sha2' })]
        : []),
    ];
  }

  private stripped(room: Room): Array<Record<string, unknown>> {
    return this.state(room)
      .map(({ type, state_key, sender, content }) => ({ type, state_key, sender, content }))
      .concat([
        { type: 'm.room.member', state_key: BOT_USER, sender: room.invitedBy, content: { membership: 'invite' } },
      ]);
  }
}
