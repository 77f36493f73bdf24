// A loopback DingTalk for Stream mode bots: the OpenAPI (`/v1.0/oauth2/accessToken`,
// `/v1.0/gateway/connections/open`, robot batchSend and groupMessages/send, messageFiles/download), the older API's
// `media/upload` (multipart, `access_token` in the query) whose media ids robot messages name, the stream
// WebSocket (`?ticket=`: SYSTEM pings, CALLBACK frames on the robot topic, acknowledgements by messageId) and the
// session webhooks a message carries for its replies.
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { HeldAnswers, Outage } from '../contract/bad-days.js';

export interface DingTalkSent {
  /** `webhook` (a session webhook reply), `batchSend` or `groupSend`. */
  via: 'webhook' | 'batchSend' | 'groupSend';
  /** The conversation (webhook, group) or user (batchSend) it went to. */
  to: string;
  /** The robot message's kind: `sampleMarkdown` (and every webhook reply), `sampleImageMsg` or `sampleFile`. */
  msgKey: string;
  title: string;
  text: string;
  /** The uploaded file a `sampleImageMsg` or `sampleFile` named. */
  file?: { name: string; bytes: Buffer; type: string };
  at: number;
}

const hex = (bytes: number): string => randomBytes(bytes).toString('hex');
const TOPIC = '/v1.0/im/bot/messages/get';

export class DingTalkEmulator {
  readonly clientId = `ding${hex(8)}`;
  readonly clientSecret = `dtsecret-${hex(16)}`;
  readonly sent: DingTalkSent[] = [];
  /** The callback messageIds the bot acknowledged. */
  readonly acked: string[] = [];
  private server!: Server;
  private readonly wss = new WebSocketServer({ noServer: true });
  private readonly sockets = new Set<WebSocket>();
  private readonly tokens = new Set<string>();
  private readonly tickets = new Set<string>();
  /** Session webhook id → the conversation it answers. */
  private readonly sessions = new Map<string, string>();
  private readonly files = new Map<string, Buffer>();
  /** Uploads by their media id. */
  private readonly media = new Map<string, { name: string; bytes: Buffer; type: string }>();
  private opened = 0;
  private waiting: Array<() => void> = [];
  private readonly outages = new Outage();
  private readonly answers = new HeldAnswers();
  /** Webhook sessions expire at once from now on (replies must go through the OpenAPI). */
  expireWebhooks = false;

  static async start(): Promise<DingTalkEmulator> {
    const emulator = new DingTalkEmulator();
    emulator.server = createServer((req, res) => void emulator.handle(req, res));
    emulator.server.on('upgrade', (req, socket, head) => {
      const ticket = new URL(req.url ?? '/', 'http://x').searchParams.get('ticket') ?? '';
      if (!emulator.tickets.delete(ticket)) return socket.end('HTTP/1.1 401 Unauthorized\r\n\r\n');
      emulator.wss.handleUpgrade(req, socket, head, (ws) => emulator.accept(ws));
    });
    await new Promise<void>((resolve) => emulator.server.listen(0, '127.0.0.1', resolve));
    return emulator;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Stream connections opened. */
  connections(): number {
    return this.opened;
  }

  /** A colleague in a one-to-one chat with the bot. */
  user(nick = 'colleague'): {
    staffId: string;
    say(text: string): Record<string, unknown>;
    sendImage(bytes: Buffer): Record<string, unknown>;
    sendVoice(bytes: Buffer): Record<string, unknown>;
    sent(): DingTalkSent[];
  } {
    const staffId = `staff${hex(4)}`;
    const conversationId = `cid${hex(8)}==`;
    const base = {
      conversationId,
      conversationType: '1',
      senderStaffId: staffId,
      senderId: `$:LWCP_v1:$${hex(8)}`,
      senderNick: nick,
    };
    return {
      staffId,
      say: (text) => this.deliver({ ...base, msgtype: 'text', text: { content: text } }),
      sendImage: (bytes) => {
        const code = `pic${hex(8)}`;
        this.files.set(code, bytes);
        const content = { downloadCode: code, pictureDownloadCode: code };
        return this.deliver({ ...base, msgtype: 'picture', content });
      },
      sendVoice: (bytes) => {
        const code = `dl${hex(8)}`;
        this.files.set(code, bytes);
        return this.deliver({
          ...base,
          msgtype: 'audio',
          content: { duration: 2000, downloadCode: code, recognition: '' },
        });
      },
      sent: () => this.sent.filter((m) => m.to === conversationId || m.to === staffId),
    };
  }

  /** An @-message to the bot in a group. */
  groupAt(conversationId: string, text: string): Record<string, unknown> {
    return this.deliver({
      conversationId,
      conversationType: '2',
      conversationTitle: 'team',
      senderStaffId: `staff${hex(4)}`,
      senderId: `$:LWCP_v1:$${hex(8)}`,
      senderNick: 'member',
      isInAtList: true,
      msgtype: 'text',
      text: { content: ` ${text}` },
    });
  }

  /** Delivers a message again (as Stream mode does when its acknowledgement was lost). */
  redeliver(data: Record<string, unknown>): void {
    this.push(data);
  }

  /** Resolves once a stream connection is open: DingTalk pushes only to a connected client. */
  async online(): Promise<void> {
    if (this.sockets.size > 0) return;
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  /** Drops every stream connection and refuses to open new ones for `ms`. */
  async outage(ms: number): Promise<void> {
    await this.outages.for(ms, () => this.drop());
  }

  /** Replies are taken but their answers kept back until `release()`. */
  holdSendAnswers(): { held(): number; release(): void } {
    return this.answers.start();
  }

  /** Closes every stream connection, as DingTalk does when it moves a connection. */
  drop(): void {
    for (const socket of this.sockets) socket.terminate();
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.terminate();
    this.wss.close();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private deliver(fields: Record<string, unknown>): Record<string, unknown> {
    const session = hex(12);
    this.sessions.set(session, String(fields.conversationId));
    const data = {
      msgId: `msg${hex(10)}`,
      chatbotUserId: `$:LWCP_v1:$bot`,
      chatbotCorpId: 'ding-corp',
      robotCode: this.clientId,
      createAt: Date.now(),
      sessionWebhook: `${this.url}/robot/sendBySession?session=${session}`,
      sessionWebhookExpiredTime: this.expireWebhooks ? Date.now() : Date.now() + 90 * 60_000,
      isAdmin: false,
      senderCorpId: 'ding-corp',
      ...fields,
    };
    this.push(data);
    return data;
  }

  private push(data: Record<string, unknown>): void {
    const frame = {
      specVersion: '1.0',
      type: 'CALLBACK',
      headers: {
        appId: this.clientId,
        connectionId: hex(8),
        contentType: 'application/json',
        messageId: randomUUID(),
        time: String(Date.now()),
        topic: TOPIC,
      },
      data: JSON.stringify(data),
    };
    for (const socket of this.sockets) socket.send(JSON.stringify(frame));
  }

  private accept(socket: WebSocket): void {
    this.opened++;
    this.sockets.add(socket);
    for (const resolve of this.waiting.splice(0)) resolve();
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('message', (raw) => {
      const frame = JSON.parse(raw.toString()) as { code?: number; headers?: { messageId?: string } };
      if (frame.code === 200 && frame.headers?.messageId) this.acked.push(frame.headers.messageId);
    });
    socket.send(
      JSON.stringify({
        specVersion: '1.0',
        type: 'SYSTEM',
        headers: { topic: 'CONNECTED', messageId: randomUUID(), contentType: 'application/json' },
        data: '{}',
      }),
    );
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks);
    const json = (status: number, value: unknown): void =>
      void res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
    const url = new URL(req.url ?? '/', this.url);
    if (req.method === 'POST' && url.pathname === '/media/upload') return this.upload(url, req, raw, json);
    const body = raw.length ? (JSON.parse(raw.toString('utf8')) as Record<string, unknown>) : {};
    const file = url.pathname.startsWith('/files/') ? this.files.get(url.pathname.slice(7)) : undefined;
    if (file) return void res.writeHead(200).end(file);
    const authorized = this.tokens.has(String(req.headers['x-acs-dingtalk-access-token'] ?? ''));
    const markdown = (m: Record<string, unknown>): { title: string; text: string } =>
      m as { title: string; text: string };
    switch (`${req.method} ${url.pathname}`) {
      case 'POST /v1.0/oauth2/accessToken': {
        if (body.appKey !== this.clientId || body.appSecret !== this.clientSecret)
          return json(400, {
            code: 'invalidClientIdOrSecret',
            message: '无效的clientId或者clientSecret',
            requestid: hex(8),
          });
        const token = hex(16);
        this.tokens.add(token);
        return json(200, { accessToken: token, expireIn: 7200 });
      }
      case 'POST /v1.0/gateway/connections/open': {
        if (this.outages.refusing) return json(503, { code: 'ServiceUnavailable', message: 'try again later' });
        if (body.clientId !== this.clientId || body.clientSecret !== this.clientSecret)
          return json(401, { code: 'InvalidAuthentication', message: 'clientId or clientSecret is invalid' });
        const ticket = hex(12);
        this.tickets.add(ticket);
        return json(200, { endpoint: `${this.url.replace('http', 'ws')}/connect`, ticket });
      }
      case 'POST /robot/sendBySession': {
        const conversation = this.sessions.get(url.searchParams.get('session') ?? '');
        if (!conversation) return json(200, { errcode: 300001, errmsg: 'session 不存在' });
        const { title, text } = markdown(body.markdown as Record<string, unknown>);
        this.sent.push({ via: 'webhook', to: conversation, msgKey: 'sampleMarkdown', title, text, at: Date.now() });
        const answer = (): void => json(200, { errcode: 0, errmsg: 'ok' });
        return this.answers.answer(answer);
      }
      case 'POST /v1.0/robot/oToMessages/batchSend':
      case 'POST /v1.0/robot/groupMessages/send': {
        if (!authorized) return json(401, { code: 'InvalidAuthentication', message: '不合法的access_token' });
        const param = JSON.parse(String(body.msgParam)) as Record<string, unknown>;
        const msgKey = String(body.msgKey);
        const file = this.media.get(String(msgKey === 'sampleImageMsg' ? param.photoURL : param.mediaId));
        if (msgKey !== 'sampleMarkdown' && !file)
          return json(400, { code: 'invalidParameter.mediaId', message: 'mediaId 不存在' });
        const { title = '', text = '' } = msgKey === 'sampleMarkdown' ? markdown(param) : {};
        const group = url.pathname.endsWith('groupMessages/send');
        this.sent.push({
          via: group ? 'groupSend' : 'batchSend',
          to: group ? String(body.openConversationId) : String((body.userIds as string[])[0]),
          msgKey,
          title,
          text,
          ...(file ? { file: msgKey === 'sampleFile' ? { ...file, name: String(param.fileName) } : file } : {}),
          at: Date.now(),
        });
        return json(200, { processQueryKey: hex(10) });
      }
      case 'POST /v1.0/robot/messageFiles/download': {
        if (!authorized || !this.files.has(String(body.downloadCode)))
          return json(400, { code: 'invalidParameter', message: 'downloadCode' });
        return json(200, { downloadUrl: `${this.url}/files/${String(body.downloadCode)}` });
      }
      default:
        return json(404, { code: 'notFound', message: `${req.method} ${url.pathname}` });
    }
  }

  /** `media/upload`: the file in the form's `media` part, its kind in `type`; errors as the older API writes them. */
  private async upload(
    url: URL,
    req: IncomingMessage,
    raw: Buffer,
    json: (status: number, value: unknown) => void,
  ): Promise<void> {
    if (!this.tokens.has(url.searchParams.get('access_token') ?? ''))
      return json(200, { errcode: 40014, errmsg: '不合法的access_token' });
    const headers = { 'content-type': String(req.headers['content-type'] ?? '') };
    const form = await new Request(url, { method: 'POST', headers, body: new Uint8Array(raw) })
      .formData()
      .catch(() => undefined);
    const media = form?.get('media');
    const type = String(form?.get('type') ?? url.searchParams.get('type') ?? '');
    if (!(media instanceof File) || !['image', 'voice', 'video', 'file'].includes(type))
      return json(200, { errcode: 40004, errmsg: '不合法的媒体文件类型' });
    const mediaId = `@lA${hex(10)}`;
    this.media.set(mediaId, { name: media.name, bytes: Buffer.from(await media.arrayBuffer()), type });
    return json(200, { errcode: 0, errmsg: 'ok', media_id: mediaId, created_at: Date.now(), type });
  }
}
