// A loopback Mattermost server: the REST API v4 routes a bot uses (`users/me`, `posts`, `posts/{id}/patch`) behind a
// Bearer token, and the WebSocket (`/api/v4/websocket`): `authentication_challenge`, `hello`, `posted` and
// `post_edited` events, the `user_typing` action. Users are simulated on the server's side. A rate limited call is
// answered as Mattermost's limiter does: 429, `limit exceeded` as text, `Retry-After` and `X-Ratelimit-*` headers.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Response } from 'undici';
import { WebSocketServer, type WebSocket } from 'ws';

export interface Post {
  id: string;
  user_id: string;
  channel_id: string;
  root_id: string;
  message: string;
  create_at: number;
  /** Earlier texts, oldest first. */
  edits: string[];
  file_ids?: string[];
  metadata?: { files: FileInfo[] };
}

export interface FileInfo {
  id: string;
  name: string;
  mime_type: string;
  size: number;
}

const newId = (): string => randomBytes(13).toString('hex').slice(0, 26);

export class MattermostServer {
  readonly token = `mm-${randomBytes(12).toString('hex')}`;
  readonly bot = { id: newId(), username: 'ternbot' };
  readonly posts: Post[] = [];
  readonly typing = new Map<string, number>();
  private server!: Server;
  private readonly wss = new WebSocketServer({ noServer: true });
  private readonly sockets = new Set<WebSocket>();
  /** Each user's direct channel with the bot, by user id. */
  private readonly directs = new Map<string, string>();
  private refusing = false;
  private connected = 0;
  private seq = 0;
  private waiting: Array<() => void> = [];
  private hold: { answers: Array<() => void>; on: boolean } | undefined;
  private limits: { left: number; seconds: number; headers: 'both' | 'reset' } = {
    left: 0,
    seconds: 0,
    headers: 'both',
  };
  /** When each 429 was answered (epoch ms). */
  readonly limited: number[] = [];
  /** Uploaded files with their bytes, by id. */
  readonly files = new Map<string, FileInfo & { bytes: Buffer }>();

  static async start(): Promise<MattermostServer> {
    const mm = new MattermostServer();
    mm.server = createServer((req, res) => void mm.rest(req, res));
    mm.server.on('upgrade', (req, socket, head) => {
      if (mm.refusing || !req.url?.startsWith('/api/v4/websocket'))
        return socket.end('HTTP/1.1 503 Service Unavailable\r\n\r\n');
      mm.wss.handleUpgrade(req, socket, head, (ws) => mm.accept(ws));
    });
    await new Promise<void>((resolve) => mm.server.listen(0, '127.0.0.1', resolve));
    return mm;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  connections(): number {
    return this.connected;
  }

  /** Resolves once the bot's WebSocket is authenticated: events before reach no one. */
  async online(): Promise<void> {
    if (this.sockets.size > 0) return;
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  /** A user with a direct channel to the bot. */
  user(username: string): { id: string; username: string; channelId: string } {
    const user = { id: newId(), username, channelId: newId() };
    this.directs.set(user.id, user.channelId);
    return user;
  }

  /** The user posts in a channel (`D` a direct one, `O` an open one), in a thread when `rootId` is set. */
  say(
    user: { id: string; username: string },
    channelId: string,
    message: string,
    kind: 'D' | 'O' = 'D',
    rootId = '',
  ): Post {
    const post: Post = {
      id: newId(),
      user_id: user.id,
      channel_id: channelId,
      root_id: rootId,
      message,
      create_at: Date.now(),
      edits: [],
    };
    this.repost(user, post, kind);
    return post;
  }

  /**
   * The `posted` event of a post (again): what a client that reconnects with its `connection_id` and last
   * `sequence_number` is sent of the events it may have missed, a post it already had among them.
   */
  repost(user: { username: string }, post: Post, kind: 'D' | 'O' = 'D'): void {
    this.broadcast(
      'posted',
      { post: JSON.stringify(post), channel_type: kind, sender_name: `@${user.username}` },
      post.channel_id,
    );
  }

  /** The user posts a file (uploaded first, as the web app does) with `message` as its text. */
  sayWithFile(
    user: { id: string; username: string },
    channelId: string,
    file: { bytes: Buffer; name: string; mime: string },
    message: string,
    kind: 'D' | 'O' = 'D',
    rootId = '',
  ): Post {
    const info = this.store(file.bytes, file.name, file.mime);
    const post: Post = {
      id: newId(),
      user_id: user.id,
      channel_id: channelId,
      root_id: rootId,
      message,
      create_at: Date.now(),
      edits: [],
      file_ids: [info.id],
      metadata: { files: [info] },
    };
    this.repost(user, post, kind);
    return post;
  }

  /** A post someone made earlier in an open channel, to start a thread under; returns its id. */
  rootPost(channelId: string): string {
    const post: Post = {
      id: newId(),
      user_id: newId(),
      channel_id: channelId,
      root_id: '',
      message: 'topic',
      create_at: Date.now(),
      edits: [],
    };
    this.posts.push(post);
    return post.id;
  }

  /** The bot's posts in a channel (only those in one thread, with `rootId`). */
  botPosts(channelId: string, rootId?: string): Post[] {
    return this.posts.filter(
      (p) => p.user_id === this.bot.id && p.channel_id === channelId && (rootId === undefined || p.root_id === rootId),
    );
  }

  /** The next `count` posts answer 429, waiting `seconds`; `reset` sends only `X-Ratelimit-Reset`, no `Retry-After`. */
  rateLimitPosts(count: number, seconds: number, headers: 'both' | 'reset' = 'both'): void {
    this.limits = { left: count, seconds, headers };
  }

  async outage(ms: number): Promise<void> {
    this.refusing = true;
    for (const socket of this.sockets) socket.terminate();
    await new Promise((resolve) => setTimeout(resolve, ms));
    this.refusing = false;
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
    for (const socket of this.sockets) socket.terminate();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private broadcast(event: string, data: Record<string, unknown>, channelId: string): void {
    for (const socket of this.sockets) {
      socket.send(JSON.stringify({ event, data, broadcast: { channel_id: channelId }, seq: this.seq++ }));
    }
  }

  private accept(ws: WebSocket): void {
    this.connected += 1;
    ws.on('message', (raw) => {
      const frame = JSON.parse(raw.toString()) as { seq: number; action: string; data?: Record<string, string> };
      if (frame.action === 'authentication_challenge') {
        if (frame.data?.token !== this.token) return ws.close(4001, 'unauthorized');
        ws.send(JSON.stringify({ status: 'OK', seq_reply: frame.seq }));
        ws.send(JSON.stringify({ event: 'hello', data: { server_version: '11.0.0' }, seq: this.seq++ }));
        this.sockets.add(ws);
        for (const resolve of this.waiting.splice(0)) resolve();
      } else if (frame.action === 'user_typing') {
        const channel = frame.data?.channel_id ?? '';
        this.typing.set(channel, (this.typing.get(channel) ?? 0) + 1);
        ws.send(JSON.stringify({ status: 'OK', seq_reply: frame.seq }));
      }
    });
    ws.on('close', () => this.sockets.delete(ws));
    ws.on('error', () => undefined);
  }

  private json(res: ServerResponse, status: number, body: unknown): void {
    // Client4 reads a body as JSON only under exactly this content type, as Mattermost sends it.
    res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
  }

  private store(bytes: Buffer, name: string, mime: string): FileInfo {
    const info = { id: newId(), name, mime_type: mime, size: bytes.length };
    this.files.set(info.id, { ...info, bytes });
    return info;
  }

  /** `POST /api/v4/files`: multipart with `channel_id` and `files`; answers the uploaded files' infos. */
  private async upload(raw: Buffer, contentType: string, res: ServerResponse): Promise<void> {
    const form = await new Response(raw, { headers: { 'content-type': contentType } }).formData();
    const file = form.get('files') as unknown as { name: string; type: string; arrayBuffer(): Promise<ArrayBuffer> };
    const info = this.store(Buffer.from(await file.arrayBuffer()), file.name, file.type);
    this.json(res, 201, { file_infos: [info], client_ids: [] });
  }

  private async rest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks);
    const multipart = (req.headers['content-type'] ?? '').startsWith('multipart/');
    const body = raw.length > 0 && !multipart ? (JSON.parse(raw.toString()) as Record<string, unknown>) : {};
    const field = (name: string): string => (typeof body[name] === 'string' ? (body[name] as string) : '');
    // Mattermost reads the scheme in any case (Client4 writes `BEARER`).
    const [scheme = '', token] = (req.headers.authorization ?? '').split(' ');
    if (scheme.toLowerCase() !== 'bearer' || token !== this.token) {
      return this.json(res, 401, {
        id: 'api.context.session_expired.app_error',
        message: 'Invalid or expired session, please login again.',
        status_code: 401,
      });
    }
    const url = req.url ?? '';
    if (req.method === 'GET' && url === '/api/v4/users/me') return this.json(res, 200, this.bot);
    if (req.method === 'POST' && url.split('?')[0] === '/api/v4/files')
      return this.upload(raw, req.headers['content-type'] ?? '', res);
    const download = /^\/api\/v4\/files\/([a-z0-9]+)$/.exec(url);
    const stored = download ? this.files.get(download[1]!) : undefined;
    if (req.method === 'GET' && stored)
      return void res.writeHead(200, { 'Content-Type': stored.mime_type }).end(stored.bytes);
    if (req.method === 'POST' && url === '/api/v4/channels/direct') {
      // The body is the two user ids; the channel of a user the server does not know is 400, as Mattermost answers.
      const ids = Object.values(body) as string[];
      const other = ids.find((id) => id !== this.bot.id);
      const channelId = ids.includes(this.bot.id) && other ? this.directs.get(other) : undefined;
      if (!channelId) return this.json(res, 400, { id: 'api.context.invalid_body_param.app_error', status_code: 400 });
      return this.json(res, 201, { id: channelId, type: 'D', name: `${this.bot.id}__${other}` });
    }
    if (req.method === 'POST' && url === '/api/v4/posts' && this.limits.left > 0) {
      this.limits.left -= 1;
      this.limited.push(Date.now());
      const { seconds, headers } = this.limits;
      const reset = { 'X-Ratelimit-Limit': '10', 'X-Ratelimit-Remaining': '0', 'X-Ratelimit-Reset': String(seconds) };
      const retry = headers === 'both' ? { 'Retry-After': String(seconds) } : {};
      return void res.writeHead(429, { 'Content-Type': 'text/plain', ...reset, ...retry }).end('limit exceeded\n');
    }
    if (req.method === 'POST' && url === '/api/v4/posts') {
      const post: Post = {
        id: newId(),
        user_id: this.bot.id,
        channel_id: field('channel_id'),
        root_id: field('root_id'),
        message: field('message'),
        create_at: Date.now(),
        edits: [],
        ...(Array.isArray(body.file_ids) ? { file_ids: body.file_ids as string[] } : {}),
      };
      this.posts.push(post);
      this.broadcast(
        'posted',
        { post: JSON.stringify(post), channel_type: 'D', sender_name: '@ternbot' },
        post.channel_id,
      );
      return this.answer(() => this.json(res, 201, post));
    }
    const patch = /^\/api\/v4\/posts\/([a-z0-9]+)\/patch$/.exec(url);
    if (req.method === 'PUT' && patch) {
      const post = this.posts.find((p) => p.id === patch[1]);
      if (!post)
        return this.json(res, 404, {
          id: 'app.post.get.app_error',
          message: 'Unable to get the post.',
          status_code: 404,
        });
      post.edits.push(post.message);
      post.message = field('message') || post.message;
      return this.answer(() => this.json(res, 200, post));
    }
    return this.json(res, 404, {
      id: 'api.context.404.app_error',
      message: 'Sorry, we could not find the page.',
      status_code: 404,
    });
  }

  private answer(send: () => void): void {
    if (this.hold?.on) this.hold.answers.push(send);
    else send();
  }
}
