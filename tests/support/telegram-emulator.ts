// The telegram-test-api Bot API emulator on a loopback port, with helpers to talk as a user and read
// what the bot sent.
import { TelegramServer } from 'telegram-test-api/lib/telegramServer.js';
import { freePort } from './free-port.js';
export { freePort };

export interface UserOptions {
  userId?: number;
  chatId?: number;
  userName?: string;
  type?: 'private' | 'group' | 'supergroup';
}

export interface BotMessage {
  text: string;
  chatId: string;
  messageId: number;
  /** When the emulator stored it (epoch ms). */
  at: number;
}

type Middleware = (
  req: { path: string; body?: Record<string, unknown>; query: Record<string, unknown> },
  res: { sendResult(data: unknown): void; status(code: number): { json(body: unknown): void } },
  next: () => void,
) => void;

export interface FaultOptions {
  /** Only this bot's calls (default: every bot's). */
  token?: string;
  /** Share of calls answered 429 with `retry_after` (not carried out). */
  rate429?: number;
  /** Share of calls answered 500. */
  rate5xx?: number;
  /** A 500 comes after the call was carried out (the message is stored, shown): the platform took it, then failed. */
  accepted?: boolean;
  /** Seconds in the 429's `retry_after` (default 1). */
  retryAfter?: number;
  /** Seeds the draw, so a run's faults can be told again (default 1). */
  seed?: number;
  /** Only calls whose body this accepts can fail. */
  match?: (body: Record<string, unknown>) => boolean;
}

export interface FaultCounts {
  calls: number;
  rateLimited: number;
  failed: number;
}

/** A small seeded generator (mulberry32): the same seed draws the same faults. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A message's text as the user sees it: with `parse_mode: HTML`, its tags applied and its entities read. */
function shown(message: { text?: unknown; parse_mode?: unknown }): string {
  const text = String(message.text);
  if (message.parse_mode !== 'HTML') return text;
  return text
    .replace(/<[^>]+>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&');
}

export class TelegramEmulator {
  server: TelegramServer;
  edits = 0;

  private constructor(
    readonly port: number,
    private readonly offsets = false,
  ) {
    this.server = this.create();
  }

  /**
   * `offsets`: `getUpdates` keeps every update until a later call's `offset` confirms it, as the Bot API does (the
   * emulator otherwise hands each update out once): a bot that fetched updates and died before confirming them gets
   * them again, and so does whoever polls its token next.
   */
  static async start(port?: number, options: { offsets?: boolean } = {}): Promise<TelegramEmulator> {
    const emulator = new TelegramEmulator(port ?? (await freePort()), options.offsets ?? false);
    await emulator.server.start();
    return emulator;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** A user message; resolves with the update id (for redelivery). */
  async say(token: string, text: string, user: UserOptions = {}): Promise<number> {
    const client = this.server.getClient(token, {
      userId: user.userId ?? 1001,
      chatId: user.chatId ?? user.userId ?? 1001,
      userName: user.userName ?? 'alice',
      type: user.type ?? 'private',
      chatTitle: 'Team',
    });
    const before = this.server.storage.userMessages.length;
    await this.server.addUserMessage(client.makeMessage(text));
    return this.server.storage.userMessages[before]!.updateId;
  }

  /** A press of an inline keyboard button whose callback data is `data`, by the user in their chat. */
  async press(token: string, data: string, user: UserOptions = {}): Promise<void> {
    const client = this.server.getClient(token, {
      userId: user.userId ?? 1001,
      chatId: user.chatId ?? user.userId ?? 1001,
      userName: user.userName ?? 'alice',
      type: user.type ?? 'private',
      chatTitle: 'Team',
    });
    await this.server.addUserCallback(client.makeCallbackQuery(data));
  }

  /** The inline keyboard of a message the bot sent, as rows of `[label, callback data]`. */
  keyboard(token: string, messageId: number): Array<Array<[string, string]>> | undefined {
    const sent = this.server.storage.botMessages.find((m) => m.botToken === token && m.messageId === messageId);
    const markup = (
      sent?.message as
        | { reply_markup?: { inline_keyboard?: Array<Array<{ text: string; callback_data: string }>> } }
        | undefined
    )?.reply_markup;
    return markup?.inline_keyboard?.map((row) => row.map((button) => [button.text, button.callback_data]));
  }

  /** Hands an already fetched update to the bot again, as Telegram does after a lost acknowledgement. */
  redeliver(updateId: number): void {
    const update = this.server.storage.userMessages.find((u) => u.updateId === updateId);
    if (!update) throw new Error(`no stored update ${updateId}`);
    update.isRead = false;
  }

  /** Whether a `getUpdates` has handed the update out (with `offsets`: since the last confirmation). */
  fetched(updateId: number): boolean {
    return this.server.storage.userMessages.find((u) => u.updateId === updateId)?.isRead === true;
  }

  botMessages(token: string, chatId: number): BotMessage[] {
    return this.server.storage.botMessages
      .filter((m) => m.botToken === token && String(m.message.chat_id) === String(chatId))
      .map((m) => ({ text: shown(m.message), chatId: String(m.message.chat_id), messageId: m.messageId, at: m.time }));
  }

  /**
   * Waits until the bot has sent `count` messages to the chat, then returns them all. The budget covers a gateway
   * that starts, loads its turn engine and answers on a loaded CI machine (seconds each); it only delays a failure.
   */
  async waitForBotMessages(token: string, chatId: number, count: number, timeoutMs = 30_000): Promise<BotMessage[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const messages = this.botMessages(token, chatId);
      if (messages.length >= count) return messages;
      if (Date.now() > deadline)
        throw new Error(
          `expected ${count} bot messages in chat ${chatId}, got ${messages.length}: ` +
            `${JSON.stringify(messages.map((m) => m.text.slice(0, 60)))}`,
        );
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  async stop(): Promise<void> {
    await this.server.stop();
  }

  /** Starts a fresh emulator on the same port (the old one must be stopped). */
  async restart(): Promise<void> {
    this.server = this.create();
    await this.server.start();
  }

  private create(): TelegramServer {
    const server = new TelegramServer({ port: this.port, host: '127.0.0.1', storeTimeout: 600 });
    server.on('EditedMessageText', () => this.edits++);
    if (this.offsets) this.confirmByOffset(server);
    return server;
  }

  /**
   * From now on the emulator carries out the bot's `method` calls (a sent message is stored and shown) but keeps their
   * answers back until `release` is called: the bot cannot know the call went through, as when it dies between a
   * send and its answer. `token` holds only that bot's calls; `held` counts the answers kept back.
   */
  holdAnswers(method: string, token?: string): { held(): number; release(): void } {
    const held: Array<() => void> = [];
    let holding = true;
    const path = /^\/bot([^/]+)\/([^/]+)$/;
    this.beforeRoutes(this.server, (req, res, next) => {
      const match = path.exec(req.path);
      if (!holding || !match || match[2] !== method || (token !== undefined && decodeURIComponent(match[1]!) !== token))
        return next();
      const answer = res.sendResult.bind(res);
      res.sendResult = (data) => (holding ? held.push(() => answer(data)) : answer(data));
      next();
    });
    return {
      held: () => held.length,
      release: () => {
        holding = false;
        for (const send of held.splice(0)) send();
      },
    };
  }

  /**
   * From now on the bot's `method` calls fail as a platform under load does, drawn at random (seeded): 429 Too Many
   * Requests with `retry_after`, or 500 Internal Server Error, each with the Bot API's JSON error body. Returns what
   * was drawn so far.
   */
  faults(method: string, options: FaultOptions): FaultCounts {
    const counts: FaultCounts = { calls: 0, rateLimited: 0, failed: 0 };
    const draw = seeded(options.seed ?? 1);
    const path = /^\/bot([^/]+)\/([^/]+)$/;
    this.beforeRoutes(this.server, (req, res, next) => {
      const match = path.exec(req.path);
      const otherToken = options.token !== undefined && decodeURIComponent(match?.[1] ?? '') !== options.token;
      if (!match || match[2] !== method || otherToken) return next();
      if (options.match && !options.match(req.body ?? {})) return next();
      counts.calls++;
      const roll = draw();
      const rate429 = options.rate429 ?? 0;
      if (roll < rate429) {
        counts.rateLimited++;
        const retryAfter = options.retryAfter ?? 1;
        const description = `Too Many Requests: retry after ${retryAfter}`;
        res.status(429).json({ ok: false, error_code: 429, description, parameters: { retry_after: retryAfter } });
        return;
      }
      if (roll < rate429 + (options.rate5xx ?? 0)) {
        counts.failed++;
        const fail = (): void => {
          res.status(500).json({ ok: false, error_code: 500, description: 'Internal Server Error' });
        };
        if (!options.accepted) return fail();
        res.sendResult = fail;
      }
      next();
    });
    return counts;
  }

  /**
   * With `offsets`: from now on a `getUpdates`' offset confirms nothing, as when the confirming call never reached
   * Telegram (the poller stopped or died holding its last updates); `release` lets offsets confirm again.
   */
  holdConfirmations(): { release(): void } {
    this.confirming = false;
    return {
      release: () => {
        this.confirming = true;
      },
    };
  }

  private confirming = true;
  private readonly confirmed = new Set<number>();

  /** With `offsets`: how many of the bot's updates no `getUpdates` confirmed yet. */
  pending(token: string): number {
    return this.server.storage.userMessages.filter((u) => u.botToken === token && !this.confirmed.has(u.updateId))
      .length;
  }

  /** Applies `getUpdates`'s offset. */
  private confirmByOffset(server: TelegramServer): void {
    const confirmed = this.confirmed;
    confirmed.clear();
    this.beforeRoutes(server, (req, _res, next) => {
      const match = /^\/bot([^/]+)\/getUpdates$/.exec(req.path);
      if (match) {
        const offset = this.confirming ? Number(req.body?.offset ?? req.query.offset ?? 0) : 0;
        for (const update of server.storage.userMessages) {
          if (update.botToken !== match[1]) continue;
          if (update.updateId < offset) confirmed.add(update.updateId);
          update.isRead = confirmed.has(update.updateId);
        }
      }
      next();
    });
  }

  /** Puts a middleware before the emulator's routes, after its body parsers. */
  private beforeRoutes(server: TelegramServer, middleware: Middleware): void {
    const app = (server as unknown as { webServer: unknown }).webServer as {
      use(fn: Middleware): void;
      _router: { stack: Array<{ name: string }> };
    };
    app.use(middleware);
    const stack = app._router.stack;
    const layer = stack.pop()!;
    const afterParsers = stack.findIndex((l) => l.name === 'requestLogger');
    stack.splice(afterParsers + 1, 0, layer);
  }
}
