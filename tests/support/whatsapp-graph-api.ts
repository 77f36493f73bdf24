// A loopback of the WhatsApp Cloud API for the channel contract: webhooks signed with the app secret
// (X-Hub-Signature-256) posted to the gateway, the Graph API's /{phone}/messages (text, media by id, typing), /{phone}/
// media uploads (multipart), media URLs, and 429 answers.
import { createHmac, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Response } from 'undici';
import type { ContractEmulator, Conversation, Said, SentMessage } from '../channels/contract/emulator.js';

const PHONE_ID = '105000000000001';
const hex = (bytes: number): string => randomBytes(bytes).toString('hex');

interface Chat {
  id: string;
  sent: SentMessage[];
  typing: number;
}

export class WhatsAppGraphApi implements ContractEmulator {
  readonly appSecret = hex(16);
  readonly accessToken = `EAAG${hex(20)}`;
  readonly verifyToken = `verify-${hex(6)}`;
  private server!: Server;
  private port = 0;
  private webhookUrl = '';
  private readonly chats = new Map<string, Chat>();
  /** Which user each inbound message came from: typing names the user's last message. */
  private readonly readers = new Map<string, string>();
  private readonly media = new Map<string, { bytes: Buffer; name?: string; mime: string }>();
  private nextUser = 15_550_001;
  private limits: number[] = [];
  private limitedAt: number[] = [];
  private hold: { answers: Array<() => void>; on: boolean } | undefined;
  readonly deliveries: Array<{ status: number; body: string }> = [];

  static async start(): Promise<WhatsAppGraphApi> {
    const api = new WhatsAppGraphApi();
    api.server = createServer((req, res) => void api.handle(req, res));
    await new Promise<void>((resolve) => api.server.listen(0, '127.0.0.1', resolve));
    api.port = (api.server.address() as AddressInfo).port;
    return api;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  settings(): Record<string, unknown> {
    return {
      phone_number_id: PHONE_ID,
      access_token: this.accessToken,
      app_secret: this.appSecret,
      verify_token: this.verifyToken,
      base_url: this.url,
    };
  }

  secrets(): string[] {
    return [this.appSecret, this.accessToken, this.verifyToken];
  }

  attach(webhookUrl: string): void {
    this.webhookUrl = webhookUrl;
  }

  sign(body: string, secret = this.appSecret): string {
    return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
  }

  async post(body: string, signature = this.sign(body)): Promise<{ status: number; body: string }> {
    const res = await fetch(this.webhookUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-hub-signature-256': signature },
      body,
    });
    const answer = { status: res.status, body: await res.text() };
    this.deliveries.push(answer);
    return answer;
  }

  /** Meta's verification request, as the app dashboard sends it when the webhook is saved. */
  async verify(token: string, challenge: string): Promise<{ status: number; body: string }> {
    const res = await fetch(
      `${this.webhookUrl}?hub.mode=subscribe&hub.verify_token=${encodeURIComponent(token)}&hub.challenge=${challenge}`,
    );
    return { status: res.status, body: await res.text() };
  }

  /** A webhook body carrying one message from `from`, stamped `at` (seconds, as WhatsApp writes it). */
  messageBody(from: string, message: Record<string, unknown>, at = Date.now()): string {
    return JSON.stringify({
      object: 'whatsapp_business_account',
      entry: [
        {
          id: '102000000000001',
          changes: [
            {
              field: 'messages',
              value: {
                messaging_product: 'whatsapp',
                metadata: { display_phone_number: '15550000000', phone_number_id: PHONE_ID },
                contacts: [{ profile: { name: 'User' }, wa_id: from }],
                messages: [{ from, timestamp: String(Math.floor(at / 1000)), ...message }],
              },
            },
          ],
        },
      ],
    });
  }

  direct(name: string): Conversation {
    void name;
    const id = String(this.nextUser++);
    const chat: Chat = { id, sent: [], typing: 0 };
    this.chats.set(id, chat);
    const said = new Map<string, Record<string, unknown>>();
    const deliver = async (message: Record<string, unknown>): Promise<Said> => {
      const full = { id: `wamid.${hex(12)}`, ...message };
      said.set(full.id, full);
      this.readers.set(full.id, id);
      await this.post(this.messageBody(id, full));
      return { id: full.id };
    };
    const stored = (bytes: Buffer, mime: string): string => {
      const mediaId = String(900_000 + this.media.size);
      this.media.set(mediaId, { bytes, mime });
      return mediaId;
    };
    return {
      sender: id,
      say: (text) => deliver({ type: 'text', text: { body: text } }),
      sendImage: (bytes, caption) =>
        deliver({
          type: 'image',
          image: { id: stored(bytes, 'image/png'), mime_type: 'image/png', sha256: hex(8), caption },
        }),
      sendVoice: (bytes) =>
        deliver({
          type: 'audio',
          audio: { id: stored(bytes, 'audio/ogg; codecs=opus'), mime_type: 'audio/ogg; codecs=opus', voice: true },
        }),
      redeliver: async (done) => {
        const message = said.get(done.id);
        if (!message) throw new Error(`no message ${done.id} to redeliver`);
        await this.post(this.messageBody(id, message));
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
    const raw = Buffer.concat(chunks);
    if (req.headers.authorization !== `Bearer ${this.accessToken}`) {
      return json(res, 401, {
        error: { message: 'Invalid OAuth access token - Cannot parse access token', type: 'OAuthException', code: 190 },
      });
    }
    const path = (req.url ?? '/').split('?')[0]!;
    const download = /^\/download\/(\d+)$/.exec(path);
    if (download)
      return void res
        .writeHead(200, { 'content-type': 'application/octet-stream' })
        .end(this.media.get(download[1]!)?.bytes);
    const route = path.replace(/^\/v[\d.]+\//, '');
    if (route === PHONE_ID && req.method === 'GET')
      return json(res, 200, { display_phone_number: '15550000000', id: PHONE_ID });
    if (route === `${PHONE_ID}/media`) {
      const form = await new Response(raw, {
        headers: { 'content-type': req.headers['content-type'] ?? '' },
      }).formData();
      const file = form.get('file') as unknown as { name: string; arrayBuffer(): Promise<ArrayBuffer> };
      const mediaId = String(900_000 + this.media.size);
      this.media.set(mediaId, {
        bytes: Buffer.from(await file.arrayBuffer()),
        name: file.name,
        mime: String(form.get('type')),
      });
      return json(res, 200, { id: mediaId });
    }
    if (route === `${PHONE_ID}/messages`)
      return this.message(JSON.parse(raw.toString('utf8')) as Record<string, unknown>, res);
    const stored = this.media.get(route);
    if (stored && req.method === 'GET')
      return json(res, 200, {
        url: `${this.url}/download/${route}`,
        mime_type: stored.mime,
        id: route,
        messaging_product: 'whatsapp',
      });
    return json(res, 400, {
      error: { message: `Unsupported request - method type: ${req.method}`, type: 'GraphMethodException', code: 100 },
    });
  }

  private message(body: Record<string, unknown>, res: ServerResponse): void {
    if (body.status === 'read') {
      const chat = this.chats.get(this.readers.get(String(body.message_id)) ?? '');
      if (chat && body.typing_indicator) chat.typing++;
      return json(res, 200, { success: true });
    }
    const limit = this.limits.shift();
    if (limit !== undefined) {
      this.limitedAt.push(Date.now());
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': String(limit) });
      return void res.end(
        JSON.stringify({ error: { message: '(#130429) Rate limit hit', type: 'OAuthException', code: 130429 } }),
      );
    }
    const chat = this.chats.get(String(body.to));
    if (!chat)
      return json(res, 400, {
        error: { message: '(#131030) Recipient phone number not in allowed list', code: 131030 },
      });
    const type = String(body.type);
    const content = body[type] as Record<string, unknown>;
    const id = `wamid.${hex(12)}`;
    const file = type === 'text' ? undefined : this.media.get(String(content.id));
    const caption = typeof content.caption === 'string' ? content.caption : undefined;
    chat.sent.push({
      id,
      text: type === 'text' ? String(content.body) : (caption ?? ''),
      edits: [],
      at: Date.now(),
      ...(file
        ? {
            file: {
              name: String(content.filename ?? file.name ?? ''),
              bytes: file.bytes,
              ...(caption !== undefined ? { caption } : {}),
            },
          }
        : {}),
    });
    const answer = (): void =>
      json(res, 200, {
        messaging_product: 'whatsapp',
        contacts: [{ input: chat.id, wa_id: chat.id }],
        messages: [{ id }],
      });
    if (this.hold?.on) this.hold.answers.push(answer);
    else answer();
  }
}

function json(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}
