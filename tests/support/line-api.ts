// A loopback LINE Messaging API for the channel contract: signed webhooks (x-line-signature) posted to the gateway,
// reply and push (X-Line-Retry-Key), the loading animation, message content, and 429 answers.
import { createHmac, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ContractEmulator, Conversation, Said, SentMessage } from '../channels/contract/emulator.js';

interface Chat {
  id: string;
  sent: SentMessage[];
  typing: number;
}

const hex = (bytes: number): string => randomBytes(bytes).toString('hex');

export class LineApi implements ContractEmulator {
  readonly channelSecret = hex(16);
  readonly accessToken = `line-token-${hex(12)}`;
  private server!: Server;
  private port = 0;
  private webhookUrl = '';
  private readonly chats = new Map<string, Chat>();
  private readonly contents = new Map<string, Buffer>();
  private readonly replyTokens = new Map<string, string>();
  private readonly retryKeys = new Set<string>();
  private nextMessage = 100_000;
  private limits: number[] = [];
  private limitedAt: number[] = [];
  private hold: { answers: Array<() => void>; on: boolean } | undefined;
  /** What the gateway answered each webhook delivery: status and body. */
  readonly deliveries: Array<{ status: number; body: string }> = [];
  /** Each text the bot sent, with the reply token it answered on (none for a push). */
  readonly texts: Array<{ text: string; replyToken?: string }> = [];
  /** The reply token of the latest delivery of each user's message, by message id. */
  readonly tokenOf = new Map<string, string>();

  static async start(): Promise<LineApi> {
    const api = new LineApi();
    api.server = createServer((req, res) => void api.handle(req, res));
    await new Promise<void>((resolve) => api.server.listen(0, '127.0.0.1', resolve));
    api.port = (api.server.address() as AddressInfo).port;
    return api;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  settings(): Record<string, unknown> {
    return { channel_secret: this.channelSecret, channel_access_token: this.accessToken, base_url: this.url };
  }

  secrets(): string[] {
    return [this.channelSecret, this.accessToken];
  }

  attach(webhookUrl: string): void {
    this.webhookUrl = webhookUrl;
  }

  /** The signature LINE puts on a body: base64 HMAC-SHA256 with the channel secret. */
  sign(body: string, secret = this.channelSecret): string {
    return createHmac('sha256', secret).update(body).digest('base64');
  }

  /** Posts a webhook body as LINE does (or with the signature given) and returns the gateway's answer. */
  async post(body: string, signature = this.sign(body)): Promise<{ status: number; body: string }> {
    const res = await fetch(this.webhookUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-line-signature': signature },
      body,
    });
    const answer = { status: res.status, body: await res.text() };
    this.deliveries.push(answer);
    return answer;
  }

  /** A webhook body with one message event from `user`, stamped `timestamp`. */
  eventBody(user: string, message: Record<string, unknown>, timestamp = Date.now(), redelivery = false): string {
    const replyToken = hex(16);
    this.replyTokens.set(replyToken, user);
    this.tokenOf.set(String(message.id), replyToken);
    return JSON.stringify({
      destination: 'Ucontractbot',
      events: [
        {
          type: 'message',
          mode: 'active',
          timestamp,
          webhookEventId: `01H${hex(10)}`,
          deliveryContext: { isRedelivery: redelivery },
          replyToken,
          source: { type: 'user', userId: user },
          message: { quoteToken: hex(8), ...message },
        },
      ],
    });
  }

  direct(name: string): Conversation {
    void name;
    const id = `U${hex(16)}`;
    const chat: Chat = { id, sent: [], typing: 0 };
    this.chats.set(id, chat);
    const said = new Map<string, Record<string, unknown>>();
    const deliver = async (message: Record<string, unknown>): Promise<Said> => {
      const full = { id: String(this.nextMessage++), ...message };
      said.set(full.id, full);
      await this.post(this.eventBody(id, full));
      return { id: full.id };
    };
    const content = (bytes: Buffer, message: Record<string, unknown>): Promise<Said> => {
      const id = String(this.nextMessage++);
      this.contents.set(id, bytes);
      return deliver({ ...message, id, contentProvider: { type: 'line' } });
    };
    return {
      sender: id,
      say: (text) => deliver({ type: 'text', text }),
      // LINE pictures carry no caption.
      sendImage: (bytes) => content(bytes, { type: 'image' }),
      sendVoice: (bytes) => content(bytes, { type: 'audio', duration: 2000 }),
      redeliver: async (done) => {
        const message = said.get(done.id);
        if (!message) throw new Error(`no message ${done.id} to redeliver`);
        await this.post(this.eventBody(id, message, Date.now(), true));
      },
      sent: () => chat.sent,
      typing: () => chat.typing,
    };
  }

  rateLimitSends(count: number, retryAfterSeconds: number): void {
    for (let i = 0; i < count; i++) this.limits.push(retryAfterSeconds);
  }

  rateLimited(): number[] {
    return this.limitedAt;
  }

  async outage(ms: number): Promise<void> {
    await new Promise((resolve) => setTimeout(resolve, ms));
  }

  connections(): number {
    return 0;
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
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const body = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
    const path = (req.url ?? '/').split('?')[0]!;
    if (req.headers.authorization !== `Bearer ${this.accessToken}`)
      return json(res, 401, {
        message: 'Authentication failed. Confirm that the access token in the authorization header is valid.',
      });
    const content = /^\/v2\/bot\/message\/(\d+)\/content$/.exec(path);
    if (content) {
      const bytes = this.contents.get(content[1]!);
      return void (bytes
        ? res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(bytes)
        : json(res, 404, { message: 'Not found' }));
    }
    switch (path) {
      case '/v2/bot/info':
        return json(res, 200, {
          userId: 'Ucontractbot',
          basicId: '@contract',
          displayName: 'Contract',
          chatMode: 'bot',
          markAsReadMode: 'auto',
        });
      case '/v2/bot/chat/loading/start': {
        const chat = this.chats.get(String(body.chatId));
        if (chat) chat.typing++;
        return json(res, 202, {});
      }
      case '/v2/bot/message/reply': {
        const user = this.replyTokens.get(String(body.replyToken));
        if (!user) return json(res, 400, { message: 'Invalid reply token' });
        return this.send(this.chats.get(user), body, res, () => this.replyTokens.delete(String(body.replyToken)));
      }
      case '/v2/bot/message/push': {
        const key = req.headers['x-line-retry-key'];
        if (typeof key === 'string' && this.retryKeys.has(key)) {
          res.writeHead(409, { 'content-type': 'application/json', 'x-line-accepted-request-id': key });
          return void res.end(JSON.stringify({ message: 'The retry key is already accepted' }));
        }
        return this.send(
          this.chats.get(String(body.to)),
          body,
          res,
          () => typeof key === 'string' && this.retryKeys.add(key),
        );
      }
      default:
        return json(res, 404, { message: 'Not found' });
    }
  }

  private send(chat: Chat | undefined, body: Record<string, unknown>, res: ServerResponse, accepted: () => void): void {
    const limit = this.limits.shift();
    if (limit !== undefined) {
      this.limitedAt.push(Date.now());
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': String(limit) });
      return void res.end(JSON.stringify({ message: 'The API rate limit has been exceeded. Try again later.' }));
    }
    if (!chat) return json(res, 400, { message: "The property, 'to', in the request body is invalid" });
    accepted();
    const messages = (body.messages as Array<{ type: string; text?: string }>) ?? [];
    const replyToken = typeof body.replyToken === 'string' ? { replyToken: body.replyToken } : {};
    const sent = messages.map((m) => {
      const message: SentMessage = { id: String(this.nextMessage++), text: m.text ?? '', edits: [], at: Date.now() };
      chat.sent.push(message);
      this.texts.push({ text: message.text, ...replyToken });
      return { id: message.id, quoteToken: hex(8) };
    });
    const answer = (): void => json(res, 200, { sentMessages: sent });
    if (this.hold?.on) this.hold.answers.push(answer);
    else answer();
  }
}

function json(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}
