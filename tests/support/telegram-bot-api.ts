// A loopback Telegram Bot API for the channel contract: long polling with offsets, sendMessage with parse_mode,
// editMessageText, sendChatAction, uploads (multipart), getFile and file downloads, photos and voice messages from
// users, forum topics, 429 answers with retry_after and refused entities. telegram-test-api (tests/support/
// telegram-emulator.ts) lacks files, uploads, parse modes and error answers; this one speaks the same JSON.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Response } from 'undici';
import type { ContractEmulator, Conversation, Said, SentMessage } from '../channels/contract/emulator.js';

const BOT = { id: 7_000_001, is_bot: true, first_name: 'Contract', username: 'ContractBot' };
const FORUM = -1_001_234;

interface Update {
  update_id: number;
  message: Record<string, unknown>;
}

interface Chat {
  id: number;
  thread?: number;
  sent: SentMessage[];
  typing: number;
}

interface Poll {
  offset: number;
  res: ServerResponse;
  timer: NodeJS.Timeout;
}

export class TelegramBotApi implements ContractEmulator {
  readonly token = `${BOT.id}:contract-token-${Math.random().toString(36).slice(2, 10)}`;
  private server!: Server;
  private port = 0;
  private readonly updates: Update[] = [];
  private readonly chats = new Map<string, Chat>();
  private readonly files = new Map<string, { path: string; bytes: Buffer }>();
  private readonly polls = new Set<Poll>();
  /** The Bot API method of each message the bot sent (`sendMessage`, `sendVoice`…), in order. */
  readonly methods: string[] = [];
  private nextUpdate = 1;
  private nextMessage = 1;
  private nextUser = 5001;
  private nextThread = 11;
  private limits: number[] = [];
  private limitedAt: number[] = [];
  private rejectFormat = false;
  private down = false;
  private getMeCalls = 0;
  private hold: { answers: Array<() => void>; on: boolean } | undefined;

  static async start(): Promise<TelegramBotApi> {
    const api = new TelegramBotApi();
    api.server = createServer((req, res) => void api.handle(req, res));
    await new Promise<void>((resolve) => api.server.listen(0, '127.0.0.1', resolve));
    api.port = (api.server.address() as AddressInfo).port;
    return api;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  settings(): Record<string, unknown> {
    return { token: this.token, base_url: this.url, poll_timeout_seconds: 1 };
  }

  secrets(): string[] {
    return [this.token];
  }

  direct(name: string): Conversation {
    const id = this.nextUser++;
    const chat: Chat = { id, sent: [], typing: 0 };
    this.chats.set(`${id}`, chat);
    return this.conversation(chat, { id, is_bot: false, first_name: name, username: name }, { id, type: 'private' });
  }

  thread(name: string): Conversation {
    const id = this.nextUser++;
    const thread = this.nextThread++;
    const chat: Chat = { id: FORUM, thread, sent: [], typing: 0 };
    this.chats.set(`${FORUM}#${thread}`, chat);
    return this.conversation(
      chat,
      { id, is_bot: false, first_name: name, username: name },
      { id: FORUM, type: 'supergroup', title: 'Forum', is_forum: true },
    );
  }

  rateLimitSends(count: number, retryAfterSeconds: number): void {
    for (let i = 0; i < count; i++) this.limits.push(retryAfterSeconds);
  }

  rateLimited(): number[] {
    return this.limitedAt;
  }

  rejectNextFormat(): void {
    this.rejectFormat = true;
  }

  async outage(ms: number): Promise<void> {
    this.down = true;
    for (const poll of this.polls) {
      clearTimeout(poll.timer);
      poll.res.socket?.destroy();
    }
    this.polls.clear();
    await new Promise((resolve) => setTimeout(resolve, ms));
    this.down = false;
  }

  connections(): number {
    return this.getMeCalls;
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
    for (const poll of this.polls) clearTimeout(poll.timer);
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private conversation(chat: Chat, from: Record<string, unknown>, where: Record<string, unknown>): Conversation {
    const base = (): Record<string, unknown> => ({
      message_id: this.nextMessage++,
      date: Math.floor(Date.now() / 1000),
      chat: where,
      from,
      ...(chat.thread !== undefined ? { message_thread_id: chat.thread, is_topic_message: true } : {}),
    });
    const push = (message: Record<string, unknown>): Said => {
      this.addUpdate(message);
      return { id: String(message.message_id) };
    };
    const said = new Map<string, Record<string, unknown>>();
    const keep = (message: Record<string, unknown>): Said => {
      const done = push(message);
      said.set(done.id, message);
      return done;
    };
    return {
      sender: String(from.id),
      say: async (text) => keep({ ...base(), text }),
      sendImage: async (bytes, caption) => {
        const fileId = this.addFile('photos/picture.png', bytes);
        return keep({
          ...base(),
          caption,
          photo: [{ file_id: fileId, file_unique_id: `u${fileId}`, width: 90, height: 90, file_size: bytes.length }],
        });
      },
      sendVoice: async (bytes) => {
        const fileId = this.addFile('voice/voice.oga', bytes);
        return keep({
          ...base(),
          voice: { file_id: fileId, file_unique_id: `u${fileId}`, duration: 2, mime_type: 'audio/ogg' },
        });
      },
      redeliver: async (done) => {
        const message = said.get(done.id);
        if (!message) throw new Error(`no message ${done.id} to redeliver`);
        this.addUpdate(message);
      },
      sent: () => chat.sent,
      typing: () => chat.typing,
    };
  }

  private addFile(path: string, bytes: Buffer): string {
    const id = `file${this.files.size + 1}`;
    this.files.set(id, { path: `${id}/${path}`, bytes });
    return id;
  }

  private addUpdate(message: Record<string, unknown>): void {
    this.updates.push({ update_id: this.nextUpdate++, message });
    for (const poll of [...this.polls]) this.answerPoll(poll);
  }

  private pending(offset: number): Update[] {
    return this.updates.filter((u) => u.update_id >= offset).slice(0, 100);
  }

  private answerPoll(poll: Poll): void {
    const ready = this.pending(poll.offset);
    if (ready.length === 0) return;
    clearTimeout(poll.timer);
    this.polls.delete(poll);
    json(poll.res, 200, { ok: true, result: ready });
  }

  private chatOf(chatId: unknown, thread: unknown): Chat | undefined {
    return this.chats.get(
      thread !== undefined && thread !== null ? `${String(chatId)}#${String(thread)}` : String(chatId),
    );
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (this.down) return void req.socket.destroy();
    const url = req.url ?? '';
    const file = /^\/file\/bot([^/]+)\/(.+)$/.exec(url);
    if (file) {
      const found = [...this.files.values()].find((f) => f.path === file[2]);
      if (file[1] !== this.token || !found) return void res.writeHead(404).end();
      return void res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(found.bytes);
    }
    const call = /^\/bot([^/]+)\/(\w+)/.exec(url);
    if (!call) return json(res, 404, { ok: false, error_code: 404, description: 'Not Found' });
    if (call[1] !== this.token) return json(res, 401, { ok: false, error_code: 401, description: 'Unauthorized' });
    const body = await readBody(req);
    const method = call[2]!;
    const ok = (result: unknown): void => json(res, 200, { ok: true, result });
    switch (method) {
      case 'getMe':
        this.getMeCalls++;
        return ok(BOT);
      case 'getUpdates': {
        const offset = Number(body.offset ?? 0);
        // Updates below the offset are confirmed: Telegram forgets them.
        for (let i = this.updates.length - 1; i >= 0; i--)
          if (this.updates[i]!.update_id < offset) this.updates.splice(i, 1);
        const poll: Poll = {
          offset,
          res,
          timer: setTimeout(
            () => {
              this.polls.delete(poll);
              ok([]);
            },
            Number(body.timeout ?? 0) * 1000,
          ),
        };
        this.polls.add(poll);
        res.on('close', () => {
          clearTimeout(poll.timer);
          this.polls.delete(poll);
        });
        return this.answerPoll(poll);
      }
      case 'sendMessage':
      case 'sendPhoto':
      case 'sendDocument':
      case 'sendAudio':
      case 'sendVoice':
      case 'sendVideo':
      case 'sendAnimation':
        return this.send(method, body, res);
      case 'editMessageText': {
        const chat =
          this.chatOf(body.chat_id, undefined) ??
          [...this.chats.values()].find(
            (c) => c.id === Number(body.chat_id) && c.sent.some((m) => m.id === String(body.message_id)),
          );
        const message = chat?.sent.find((m) => m.id === String(body.message_id));
        if (!message)
          return json(res, 400, { ok: false, error_code: 400, description: 'Bad Request: message to edit not found' });
        message.edits.push(message.text);
        message.text = String(body.text);
        return ok({ message_id: Number(message.id), chat: { id: chat!.id }, text: message.text });
      }
      case 'sendChatAction': {
        const chat = this.chatOf(body.chat_id, body.message_thread_id);
        if (chat) chat.typing++;
        return ok(true);
      }
      case 'getFile': {
        const found = this.files.get(String(body.file_id));
        if (!found) return json(res, 400, { ok: false, error_code: 400, description: 'Bad Request: invalid file_id' });
        return ok({
          file_id: body.file_id,
          file_unique_id: `u${String(body.file_id)}`,
          file_size: found.bytes.length,
          file_path: found.path,
        });
      }
      default:
        return ok(true);
    }
  }

  private send(method: string, body: Record<string, unknown>, res: ServerResponse): void {
    const limit = this.limits.shift();
    if (limit !== undefined) {
      this.limitedAt.push(Date.now());
      return json(res, 429, {
        ok: false,
        error_code: 429,
        description: `Too Many Requests: retry after ${limit}`,
        parameters: { retry_after: limit },
      });
    }
    if (this.rejectFormat && body.parse_mode) {
      this.rejectFormat = false;
      return json(res, 400, {
        ok: false,
        error_code: 400,
        description: 'Bad Request: can\'t parse entities: Unsupported start tag "b" at byte offset 6',
      });
    }
    const chat = this.chatOf(body.chat_id, body.message_thread_id);
    if (!chat) return json(res, 400, { ok: false, error_code: 400, description: 'Bad Request: chat not found' });
    // grammY names the file field in the method's field (`document: "attach://<field>"`), as the Bot API allows.
    const field = method === 'sendMessage' ? undefined : body[method.replace(/^send/, '').toLowerCase()];
    const attached =
      typeof field === 'string' && field.startsWith('attach://') ? body[field.slice('attach://'.length)] : field;
    const upload = attached as { name: string; bytes: Buffer } | undefined;
    const caption = typeof body.caption === 'string' ? body.caption : undefined;
    this.methods.push(method);
    const message: SentMessage = {
      id: String(this.nextMessage++),
      text: String(body.text ?? caption ?? ''),
      edits: [],
      ...(typeof body.parse_mode === 'string' ? { format: body.parse_mode } : {}),
      ...(upload
        ? { file: { name: upload.name, bytes: upload.bytes, ...(caption !== undefined ? { caption } : {}) } }
        : {}),
      at: Date.now(),
    };
    chat.sent.push(message);
    const answer = (): void =>
      json(res, 200, {
        ok: true,
        result: {
          message_id: Number(message.id),
          date: Math.floor(message.at / 1000),
          chat: { id: chat.id },
          text: message.text,
        },
      });
    if (this.hold?.on) this.hold.answers.push(answer);
    else answer();
  }
}

function json(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/** A JSON body, a form, or a multipart form (uploads: each file as `{ name, bytes }`). */
async function readBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks);
  const type = req.headers['content-type'] ?? '';
  if (type.includes('application/json'))
    return raw.length ? (JSON.parse(raw.toString('utf8')) as Record<string, unknown>) : {};
  if (type.includes('multipart/form-data') || type.includes('application/x-www-form-urlencoded')) {
    const form = await new Response(raw, { headers: { 'content-type': type } }).formData();
    const out: Record<string, unknown> = {};
    for (const [key, value] of form.entries()) {
      out[key] =
        typeof value === 'string' ? value : { name: value.name, bytes: Buffer.from(await value.arrayBuffer()) };
    }
    return out;
  }
  const query = new URL(req.url ?? '/', 'http://x').searchParams;
  return Object.fromEntries(query.entries());
}
