// A loopback Feishu open platform for an app bot on the long connection: the tenant token
// (`/open-apis/auth/v3/tenant_access_token/internal`), `GET /open-apis/bot/v3/info`, the long connection's endpoint
// (`POST /callback/ws/endpoint`) and its WebSocket speaking the SDK's protobuf frames (pbbp2.Frame: control pings and
// pongs, data frames carrying events, acknowledged by the same frame with `{"code":200}`), and the IM API: messages
// created (cards and text), replied to (in a topic thread with `reply_in_thread`) and patched, reactions, message
// resources.
import { createCipheriv, createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';

const hex = (bytes: number): string => randomBytes(bytes).toString('hex');

interface Header {
  key: string;
  value: string;
}

/** pbbp2.Frame: SeqID 1, LogID 2, service 3, method 4 (0 control, 1 data), headers 5, payload 8. */
export interface Frame {
  SeqID: number;
  LogID: number;
  service: number;
  method: number;
  headers: Header[];
  payload?: Buffer;
}

function varint(value: number): Buffer {
  const bytes: number[] = [];
  let v = value;
  while (v > 0x7f) {
    bytes.push((v & 0x7f) | 0x80);
    v = Math.floor(v / 128);
  }
  bytes.push(v);
  return Buffer.from(bytes);
}

const field = (number: number, wire: number): Buffer => varint(number * 8 + wire);
const bytesField = (number: number, bytes: Buffer): Buffer =>
  Buffer.concat([field(number, 2), varint(bytes.length), bytes]);

export function encodeFrame(frame: Frame): Buffer {
  const headers = frame.headers.map((h) =>
    bytesField(5, Buffer.concat([bytesField(1, Buffer.from(h.key)), bytesField(2, Buffer.from(h.value))])),
  );
  return Buffer.concat([
    field(1, 0),
    varint(frame.SeqID),
    field(2, 0),
    varint(frame.LogID),
    field(3, 0),
    varint(frame.service),
    field(4, 0),
    varint(frame.method),
    ...headers,
    ...(frame.payload ? [bytesField(8, frame.payload)] : []),
  ]);
}

/** Reads the fields of one protobuf message: varints as numbers, length-delimited ones as bytes. */
function fields(buffer: Buffer): Array<{ number: number; value: number | Buffer }> {
  const out: Array<{ number: number; value: number | Buffer }> = [];
  let at = 0;
  const readVarint = (): number => {
    let result = 0;
    let scale = 1;
    for (;;) {
      const byte = buffer[at++]!;
      result += (byte & 0x7f) * scale;
      if (byte < 0x80) return result;
      scale *= 128;
    }
  };
  while (at < buffer.length) {
    const tag = readVarint();
    const [number, wire] = [Math.floor(tag / 8), tag % 8];
    if (wire === 0) out.push({ number, value: readVarint() });
    else if (wire === 2) {
      const length = readVarint();
      out.push({ number, value: buffer.subarray(at, at + length) });
      at += length;
    } else throw new Error(`unexpected protobuf wire type ${wire}`);
  }
  return out;
}

export function decodeFrame(buffer: Buffer): Frame {
  const frame: Frame = { SeqID: 0, LogID: 0, service: 0, method: 0, headers: [] };
  for (const { number, value } of fields(buffer)) {
    if (number === 1) frame.SeqID = value as number;
    else if (number === 2) frame.LogID = value as number;
    else if (number === 3) frame.service = value as number;
    else if (number === 4) frame.method = value as number;
    else if (number === 5) {
      const parts = fields(value as Buffer);
      const text = (n: number): string =>
        (parts.find((p) => p.number === n)?.value as Buffer | undefined)?.toString() ?? '';
      frame.headers.push({ key: text(1), value: text(2) });
    } else if (number === 8) frame.payload = value as Buffer;
  }
  return frame;
}

export interface FeishuSent {
  id: string;
  chatId: string;
  /** `interactive` (a card) or `text`. */
  type: string;
  /** The card's Markdown, or the text message's text; the latest after patches. */
  text: string;
  /** Each text the message had, the first included. */
  versions: string[];
  /** When Feishu took it (epoch ms). */
  at: number;
  /** The topic thread it is in (a reply in a thread); none: the chat itself. */
  threadId?: string;
}

const SERVICE_ID = 33554678;

export class FeishuEmulator {
  readonly appId = `cli_${hex(8)}`;
  readonly appSecret = `fssecret${hex(12)}`;
  readonly botOpenId = `ou_${hex(16)}`;
  readonly sent: FeishuSent[] = [];
  readonly reactions: Array<{ messageId: string; emoji: string }> = [];
  /** Images and files uploaded: the key given, the form's text fields, the bytes. */
  readonly uploads: Array<{ key: string; fields: Record<string, string>; bytes: Buffer }> = [];
  /** Event message_ids the app acknowledged with code 200. */
  readonly acked: string[] = [];
  /** Cards are refused with Feishu's 230099 (as for a card with too many tables). */
  refuseCards = false;
  /** The Encrypt Key set on the app: events go out encrypted with it. */
  encryptKey = '';
  private server!: Server;
  private readonly wss = new WebSocketServer({ noServer: true });
  private readonly sockets = new Set<WebSocket>();
  /** Connections that pinged: events go to these. */
  private readonly live = new Set<WebSocket>();
  private readonly tokens = new Set<string>();
  private readonly tickets = new Set<string>();
  private readonly files = new Map<string, Buffer>();
  /** Each user's one-to-one chat with the bot: a message sent to their open_id lands there. */
  private readonly chatsByOpenId = new Map<string, string>();
  /** Where each message users and the bot sent is: its chat and topic thread. */
  private readonly placed = new Map<string, { chatId: string; threadId?: string }>();
  private opened = 0;
  private waiting: Array<() => void> = [];
  /** Events pushed and not yet acknowledged, by event id, with the connection that has them. */
  private readonly unacknowledged = new Map<string, { event: Record<string, unknown>; socket: WebSocket }>();
  /** Events that came while no connection was open: the next connection gets them. */
  private readonly undelivered: Array<Record<string, unknown>> = [];
  /** Sends still to be answered 429, and the `x-ogw-ratelimit-reset` they carry. */
  private limit = { count: 0, resetSeconds: 0 };
  /** When each 429 was answered (epoch ms). */
  readonly limitedAt: number[] = [];
  /** The next card only is refused (`refuseCards` refuses every one). */
  refuseNextCard = false;
  /** While set, the long connection's endpoint answers only when the outage is over. */
  private outageOver: Promise<void> | undefined;
  private hold: { answers: Array<() => void>; on: boolean } | undefined;

  static async start(): Promise<FeishuEmulator> {
    const emulator = new FeishuEmulator();
    emulator.server = createServer((req, res) => void emulator.handle(req, res));
    emulator.server.on('upgrade', (req, socket, head) => {
      const ticket = new URL(req.url ?? '/', 'http://x').searchParams.get('ticket') ?? '';
      if (!emulator.tickets.delete(ticket))
        return socket.end('HTTP/1.1 403 Forbidden\r\nhandshake-status: 403\r\n\r\n');
      emulator.wss.handleUpgrade(req, socket, head, (ws) => emulator.accept(ws));
    });
    await new Promise<void>((resolve) => emulator.server.listen(0, '127.0.0.1', resolve));
    return emulator;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Long connections opened. */
  connections(): number {
    return this.opened;
  }

  /** Resolves once the bot holds a long connection: events reach only a connected app. */
  async online(): Promise<void> {
    while (this.live.size === 0) await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  /** A user in a one-to-one (p2p) chat with the bot. */
  user(): {
    openId: string;
    chatId: string;
    say(text: string): Record<string, unknown>;
    sendImage(bytes: Buffer): Record<string, unknown>;
    sendVoice(bytes: Buffer): Record<string, unknown>;
    sent(): FeishuSent[];
  } {
    const openId = `ou_${hex(16)}`;
    const chatId = `oc_${hex(16)}`;
    const base = { chat_id: chatId, chat_type: 'p2p', sender: openId };
    this.chatsByOpenId.set(openId, chatId);
    return {
      openId,
      chatId,
      say: (text) => this.deliver({ ...base, type: 'text', content: { text } }),
      sendImage: (bytes) => {
        const key = `img_v3_${hex(10)}`;
        this.files.set(key, bytes);
        return this.deliver({ ...base, type: 'image', content: { image_key: key } });
      },
      sendVoice: (bytes) => {
        const key = `file_v3_${hex(10)}`;
        this.files.set(key, bytes);
        return this.deliver({ ...base, type: 'audio', content: { file_key: key, duration: 2000 } });
      },
      sent: () => this.sent.filter((m) => m.chatId === chatId),
    };
  }

  /**
   * A user in a topic thread of a group (a topic group's topic, or a thread opened on a message): each message
   * @-mentions the bot and carries the thread's `thread_id`, and after the first the thread's `root_id`.
   */
  topic(): { openId: string; threadId: string; say(text: string): Record<string, unknown>; sent(): FeishuSent[] } {
    const openId = `ou_${hex(16)}`;
    const chatId = `oc_${hex(16)}`;
    const threadId = `omt_${hex(12)}`;
    let rootId: string | undefined;
    const mention = { key: '@_user_1', id: { open_id: this.botOpenId, union_id: `on_${hex(16)}` }, name: 'Tern' };
    return {
      openId,
      threadId,
      say: (text) => {
        const event = this.deliver({
          chat_id: chatId,
          chat_type: 'group',
          sender: openId,
          type: 'text',
          content: { text: `@_user_1 ${text}` },
          mentions: [mention],
          thread_id: threadId,
          ...(rootId ? { root_id: rootId, parent_id: rootId } : {}),
        });
        rootId ??= (event.event as { message: { message_id: string } }).message.message_id;
        return event;
      },
      sent: () => this.sent.filter((m) => m.threadId === threadId),
    };
  }

  /** A group message; `atBot` puts an @-mention of the bot before the text, as the Feishu client does. */
  group(chatId: string, text: string, atBot: boolean): Record<string, unknown> {
    const mentions = atBot
      ? [{ key: '@_user_1', id: { open_id: this.botOpenId, union_id: `on_${hex(16)}` }, name: 'Tern' }]
      : [];
    return this.deliver({
      chat_id: chatId,
      chat_type: 'group',
      sender: `ou_${hex(16)}`,
      type: 'text',
      content: { text: `${atBot ? '@_user_1 ' : ''}${text}` },
      mentions,
    });
  }

  /** Sends an event again (Feishu redelivers what was not acknowledged in time). */
  redeliver(event: Record<string, unknown>): void {
    this.push(event);
  }

  /** The next `count` sends are answered 429 with code 99991400, as Feishu's frequency control answers. */
  rateLimitSends(count: number, resetSeconds: number): void {
    this.limit = { count, resetSeconds };
  }

  /** Drops every long connection; for `ms` a new one's endpoint call gets no answer, as when Feishu is unreachable. */
  async outage(ms: number): Promise<void> {
    let over = (): void => undefined;
    this.outageOver = new Promise<void>((resolve) => {
      over = resolve;
    });
    this.drop();
    await new Promise((resolve) => setTimeout(resolve, ms));
    this.outageOver = undefined;
    over();
  }

  /** Messages are created but their answers kept back until `release()`. */
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

  /** Closes every long connection, as Feishu does when it moves one. */
  drop(): void {
    for (const socket of this.sockets) socket.terminate();
  }

  async close(): Promise<void> {
    this.drop();
    this.wss.close();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private deliver(m: {
    chat_id: string;
    chat_type: string;
    sender: string;
    type: string;
    content: Record<string, unknown>;
    mentions?: unknown[];
    thread_id?: string;
    root_id?: string;
    parent_id?: string;
  }): Record<string, unknown> {
    const now = String(Date.now());
    const messageId = `om_${hex(16)}`;
    this.placed.set(messageId, { chatId: m.chat_id, ...(m.thread_id ? { threadId: m.thread_id } : {}) });
    const thread = {
      ...(m.root_id ? { root_id: m.root_id } : {}),
      ...(m.parent_id ? { parent_id: m.parent_id } : {}),
      ...(m.thread_id ? { thread_id: m.thread_id } : {}),
    };
    const event = {
      schema: '2.0',
      header: {
        event_id: hex(16),
        event_type: 'im.message.receive_v1',
        create_time: now,
        token: '',
        app_id: this.appId,
        tenant_key: 'tenant0',
      },
      event: {
        sender: {
          sender_id: { open_id: m.sender, union_id: `on_${hex(16)}`, user_id: hex(4) },
          sender_type: 'user',
          tenant_key: 'tenant0',
        },
        message: {
          message_id: messageId,
          ...thread,
          create_time: now,
          update_time: now,
          chat_id: m.chat_id,
          chat_type: m.chat_type,
          message_type: m.type,
          content: JSON.stringify(m.content),
          ...(m.mentions?.length ? { mentions: m.mentions } : {}),
        },
      },
    };
    this.push(event);
    return event;
  }

  /** AES-256-CBC with the SHA-256 of the Encrypt Key, a random IV before the ciphertext, base64: Feishu's scheme. */
  private encrypted(json: string): string {
    const iv = randomBytes(16);
    const cipher = createCipheriv('aes-256-cbc', createHash('sha256').update(this.encryptKey).digest(), iv);
    return Buffer.concat([iv, cipher.update(json, 'utf8'), cipher.final()]).toString('base64');
  }

  private push(event: Record<string, unknown>): void {
    const json = JSON.stringify(event);
    const body = this.encryptKey ? JSON.stringify({ encrypt: this.encrypted(json) }) : json;
    const id = String((event.header as { event_id: string }).event_id);
    const frame = encodeFrame({
      SeqID: 0,
      LogID: 0,
      service: SERVICE_ID,
      method: 1,
      headers: [
        { key: 'type', value: 'event' },
        { key: 'message_id', value: id },
        { key: 'sum', value: '1' },
        { key: 'seq', value: '0' },
        { key: 'trace_id', value: hex(8) },
      ],
      payload: Buffer.from(body),
    });
    // One connection gets each event (the newest, as a client that reconnected is the live one); an event not
    // acknowledged when its connection closes goes out again on another, as Feishu delivers unacknowledged events.
    const socket = [...this.live].at(-1);
    if (!socket) return void this.undelivered.push(event);
    this.unacknowledged.set(id, { event, socket });
    socket.send(frame);
  }

  /**
   * The SDK pings as the connection opens and listens for events only after that: an event in the same packet as
   * the handshake's answer would be lost. The emulator, like a server some milliseconds away, sends events to a
   * connection once it has pinged.
   */
  private wentLive(socket: WebSocket): void {
    this.live.add(socket);
    for (const resolve of this.waiting.splice(0)) resolve();
    for (const event of this.undelivered.splice(0)) this.push(event);
  }

  private accept(socket: WebSocket): void {
    this.opened++;
    this.sockets.add(socket);
    socket.on('close', () => {
      this.sockets.delete(socket);
      this.live.delete(socket);
      const orphans = [...this.unacknowledged.values()].filter((pending) => pending.socket === socket);
      for (const { event } of orphans) this.push(event);
    });
    socket.on('message', (raw: Buffer) => {
      const frame = decodeFrame(raw);
      const header = (key: string): string | undefined => frame.headers.find((h) => h.key === key)?.value;
      if (frame.method === 0 && header('type') === 'ping') {
        if (!this.live.has(socket)) this.wentLive(socket);
        const pong = { PingInterval: 120, ReconnectCount: -1, ReconnectInterval: 120, ReconnectNonce: 30 };
        socket.send(
          encodeFrame({
            ...frame,
            headers: [{ key: 'type', value: 'pong' }],
            payload: Buffer.from(JSON.stringify(pong)),
          }),
        );
      } else if (frame.method === 1 && frame.payload) {
        const answer = JSON.parse(frame.payload.toString()) as { code?: number };
        if (answer.code !== 200) return;
        this.acked.push(header('message_id') ?? '');
        this.unacknowledged.delete(header('message_id') ?? '');
      }
    });
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const bytes = Buffer.concat(chunks);
    const raw = bytes.toString('utf8');
    const body = (raw.startsWith('{') ? JSON.parse(raw) : {}) as Record<string, unknown>;
    const json = (status: number, value: unknown): void =>
      void res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(value));
    const url = new URL(req.url ?? '/', this.url);
    const token = /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ''))?.[1] ?? '';
    const path = url.pathname;
    if (path === '/open-apis/auth/v3/tenant_access_token/internal' && req.method === 'POST') {
      if (body.app_id !== this.appId || body.app_secret !== this.appSecret) {
        return json(400, { code: 10014, msg: 'app secret invalid' });
      }
      const issued = `t-${hex(20)}`;
      this.tokens.add(issued);
      return json(200, { code: 0, msg: 'ok', tenant_access_token: issued, expire: 7200 });
    }
    if (path === '/callback/ws/endpoint' && req.method === 'POST') {
      await this.outageOver;
      if (body.AppID !== this.appId || body.AppSecret !== this.appSecret)
        return json(200, { code: 514, msg: 'auth failed' });
      const ticket = hex(12);
      this.tickets.add(ticket);
      const address =
        `${this.url.replace('http', 'ws')}/ws/v2?fpid=493&aid=552564&device_id=${hex(8)}` +
        `&access_key=${hex(8)}&service_id=${SERVICE_ID}&ticket=${ticket}`;
      const config = { ReconnectCount: -1, ReconnectInterval: 120, ReconnectNonce: 30, PingInterval: 120 };
      return json(200, { code: 0, msg: 'ok', data: { URL: address, ClientConfig: config } });
    }
    if (!this.tokens.has(token)) return json(400, { code: 99991663, msg: 'Invalid access token for authorization.' });
    const messagePath = /^\/open-apis\/im\/v1\/messages\/([^/]+)(\/.*)?$/.exec(path);
    if (path === '/open-apis/bot/v3/info' && req.method === 'GET') {
      return json(200, {
        code: 0,
        msg: 'ok',
        bot: { activate_status: 2, app_name: 'Tern', avatar_url: '', ip_white_list: [], open_id: this.botOpenId },
      });
    }
    const upload = /^\/open-apis\/im\/v1\/(images|files)$/.exec(path);
    if (upload && req.method === 'POST') {
      const form = await new Response(bytes, {
        headers: { 'content-type': String(req.headers['content-type']) },
      }).formData();
      const image = upload[1] === 'images';
      const part = form.get(image ? 'image' : 'file');
      if (!(part instanceof Blob) || (image && form.get('image_type') !== 'message')) {
        return json(400, { code: 234001, msg: 'Invalid request param.' });
      }
      const key = `${image ? 'img_v3_' : 'file_v3_'}${hex(10)}`;
      const fields: Record<string, string> = {};
      form.forEach((value, name) => {
        if (typeof value === 'string') fields[name] = value;
      });
      this.uploads.push({ key, fields, bytes: Buffer.from(await part.arrayBuffer()) });
      return json(200, { code: 0, msg: 'success', data: image ? { image_key: key } : { file_key: key } });
    }
    if (path === '/open-apis/im/v1/messages' && req.method === 'POST') {
      const receiverType = url.searchParams.get('receive_id_type');
      const chatId =
        receiverType === 'chat_id'
          ? String(body.receive_id)
          : receiverType === 'open_id'
            ? this.chatsByOpenId.get(String(body.receive_id))
            : undefined;
      if (chatId === undefined) return json(400, { code: 99992402, msg: 'field validation failed' });
      return this.created(res, body, chatId);
    }
    if (messagePath?.[2] === '/reply' && req.method === 'POST') {
      const target = this.placed.get(messagePath[1]!);
      if (!target) return json(400, { code: 230011, msg: 'The message was withdrawn or does not exist.' });
      // A reply to a message in a thread stays in it; `reply_in_thread` opens one on a message that has none.
      const threadId = target.threadId ?? (body.reply_in_thread === true ? `omt_${hex(12)}` : undefined);
      if (threadId && !target.threadId) target.threadId = threadId;
      return this.created(res, body, target.chatId, threadId);
    }
    if (messagePath && !messagePath[2] && req.method === 'PATCH') {
      const message = this.sent.find((m) => m.id === messagePath[1]);
      if (message?.type !== 'interactive') return json(400, { code: 230001, msg: 'message is not a card' });
      message.text = this.cardText(JSON.parse(String(body.content)) as Record<string, unknown>);
      message.versions.push(message.text);
      return json(200, { code: 0, msg: 'success', data: {} });
    }
    if (messagePath?.[2] === '/reactions' && req.method === 'POST') {
      const emoji = String((body.reaction_type as { emoji_type?: string } | undefined)?.emoji_type ?? '');
      this.reactions.push({ messageId: messagePath[1]!, emoji });
      return json(200, {
        code: 0,
        msg: 'success',
        data: { reaction_id: hex(8), reaction_type: { emoji_type: emoji } },
      });
    }
    const resource = messagePath?.[2] ? /^\/resources\/(.+)$/.exec(messagePath[2]) : null;
    if (resource && req.method === 'GET') {
      const file = this.files.get(resource[1]!);
      const image = resource[1]!.startsWith('img_');
      if (!file || url.searchParams.get('type') !== (image ? 'image' : 'file'))
        return json(400, { code: 234003, msg: 'File not in msg.' });
      return void res.writeHead(200, { 'content-type': image ? 'image/png' : 'audio/ogg' }).end(file);
    }
    return json(404, { code: 404, msg: `${req.method} ${path}` });
  }

  /** A message created in a chat (and thread), as `POST /messages` and `/messages/:id/reply` create one. */
  private async created(
    res: ServerResponse,
    body: Record<string, unknown>,
    chatId: string,
    threadId?: string,
  ): Promise<void> {
    const json = (status: number, value: unknown): void =>
      void res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(value));
    if (this.limit.count > 0) {
      this.limit.count--;
      this.limitedAt.push(Date.now());
      return void res
        .writeHead(429, {
          'content-type': 'application/json; charset=utf-8',
          'x-ogw-ratelimit-limit': '5',
          'x-ogw-ratelimit-reset': String(this.limit.resetSeconds),
        })
        .end(JSON.stringify({ code: 99991400, msg: 'request trigger frequency limit' }));
    }
    const content = JSON.parse(String(body.content)) as Record<string, unknown>;
    const type = String(body.msg_type);
    if (type === 'interactive' && (this.refuseCards || this.refuseNextCard)) {
      this.refuseNextCard = false;
      return json(400, { code: 230099, msg: 'Failed to create card content' });
    }
    const text = type === 'interactive' ? this.cardText(content) : String(content.text ?? JSON.stringify(content));
    const id = `om_${hex(16)}`;
    this.sent.push({ id, chatId, type, text, versions: [text], at: Date.now(), ...(threadId ? { threadId } : {}) });
    this.placed.set(id, { chatId, ...(threadId ? { threadId } : {}) });
    const hold = this.hold;
    if (hold?.on) await new Promise<void>((resolve) => hold.answers.push(resolve));
    return json(200, {
      code: 0,
      msg: 'success',
      data: {
        message_id: id,
        chat_id: chatId,
        ...(threadId ? { thread_id: threadId } : {}),
        msg_type: type,
        create_time: String(Date.now()),
        deleted: false,
        updated: false,
        body: { content: body.content },
      },
    });
  }

  private cardText(content: Record<string, unknown>): string {
    const elements =
      (content.body as { elements?: Array<{ tag?: string; content?: string }> } | undefined)?.elements ?? [];
    return elements
      .filter((e) => e.tag === 'markdown')
      .map((e) => e.content ?? '')
      .join('\n');
  }
}
