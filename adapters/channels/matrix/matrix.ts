import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
// The HTTP API alone, not the package's index: the whole client (sync, crypto, calls) would add ~30 MB to every
// gateway that runs a Matrix channel.
import { getHttpUriForMxc } from 'matrix-js-sdk/lib/content-repo.js';
import {
  ClientPrefix,
  ConnectionError,
  MatrixError,
  MatrixHttpApi,
  MediaPrefix,
  Method,
  type IHttpOpts,
} from 'matrix-js-sdk/lib/http-api/index.js';
import { TypedEventEmitter } from 'matrix-js-sdk/lib/models/typed-event-emitter.js';
import { CHAT_COMMANDS } from '../command-names.js';
import {
  ChannelError,
  type Channel,
  type ChannelCapabilities,
  type ChannelHooks,
  type OutboundFile,
} from '../channel.js';
import { renderMarkdown } from '../markdown.js';
import { honourRateLimit } from '../rate-limit.js';
import { REPLAY_WINDOW_MS } from '../replay-window.js';
import { fromMatrixMessage, matrixMessageSchema, matrixTarget } from './matrix-event.js';
import { matrixHtml } from './matrix-html.js';
import { inviteEncrypted, roomFacts, syncAnswerSchema, type RoomFacts, type SyncAnswer } from './matrix-sync.js';

export interface MatrixOptions {
  /** `settings.homeserver`: the client-server API root, e.g. `https://matrix.org`. */
  homeserver: string;
  /** `settings.user_id`: the bot's account, `@bot:example.org`. */
  userId: string;
  accessToken: string;
  deviceId?: string;
  /** `settings.join_on_invite`: accept room invites (default true). */
  joinOnInvite: boolean;
  /** `settings.message_format`: `markdown` (HTML beside the text, the default) or `plain`. */
  messageFormat: 'markdown' | 'plain';
}

/**
 * Matrix allows 65,536 bytes per event, and a message carries its text twice (Markdown `body`, HTML
 * `formatted_body`): 8,000 characters keep even three-byte scripts inside it.
 */
export const MATRIX_MAX_LENGTH = 8000;
/** Files a bot downloads here: the usual `m.upload.size` of public homeservers. */
const MAX_DOWNLOAD_BYTES = 50 * 1024 * 1024;
/** How long one `/sync` long poll waits for news at the homeserver. */
const SYNC_TIMEOUT_MS = 30_000;

/** What an encrypted room is told, once per room and process: Tern cannot read it. */
export const ENCRYPTED_REFUSAL =
  'This room is end-to-end encrypted and Tern cannot read encrypted messages yet: ' +
  'invite the bot to an unencrypted room.';

type Logger = NonNullable<IHttpOpts['logger']>;
type Http = MatrixHttpApi<IHttpOpts & { onlyData: true }>;

/** matrix-js-sdk logs to the console by default; the gateway's own log says what matters. */
const silent: Logger = {
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  getChild: () => silent,
};

function asChannelError(error: unknown, what: string): ChannelError {
  if (error instanceof ChannelError) return error;
  if (error instanceof MatrixError) {
    if (error.httpStatus === 429 || error.errcode === 'M_LIMIT_EXCEEDED') {
      const wait = Number(error.data.retry_after_ms ?? 0);
      const failure = { delivered: 'no' as const, retry: true, retryAfterMs: wait > 0 ? wait : 1000 };
      return new ChannelError('rate_limited', `Matrix ${what}: rate limited`, failure);
    }
    const unauthorized = error.httpStatus === 401 || error.errcode === 'M_UNKNOWN_TOKEN';
    const said = `Matrix ${what}: ${error.errcode ?? error.httpStatus} ${error.data.error ?? ''}`.trim();
    return new ChannelError(unauthorized ? 'unauthorized' : 'platform', said);
  }
  if (error instanceof ConnectionError) return new ChannelError('network', `Matrix ${what}: ${error.message}`);
  return new ChannelError('network', `Matrix ${what}: ${(error as Error)?.message ?? String(error)}`);
}

const MSGTYPES: Record<OutboundFile['kind'], string> = {
  image: 'm.image',
  audio: 'm.audio',
  video: 'm.video',
  file: 'm.file',
};

/** The relation that puts a message in a thread (with the reply fallback for clients without threads). */
const inThread = (thread: string | undefined): Record<string, unknown> =>
  thread
    ? {
        'm.relates_to': {
          rel_type: 'm.thread',
          event_id: thread,
          is_falling_back: true,
          'm.in_reply_to': { event_id: thread },
        },
      }
    : {};

/**
 * Matrix through matrix-js-sdk's HTTP API: the `/sync` long poll brings room messages and invites; messages go
 * out as `PUT /rooms/{room}/send` with a transaction id, which the homeserver takes once however often it is repeated.
 * End-to-end encryption is not done (see `docs/channels/matrix.md`): encrypted rooms are told so and left unanswered.
 */
export class MatrixChannel implements Channel {
  readonly kind = 'matrix';
  readonly capabilities: ChannelCapabilities = {
    commands: CHAT_COMMANDS,
    streaming: true,
    maxMessageLength: MATRIX_MAX_LENGTH,
  };
  private http: Http | undefined;
  private abort: AbortController | undefined;
  private readonly rooms = new Map<string, RoomFacts>();
  private readonly joining = new Set<string>();
  private readonly refused = new Set<string>();

  constructor(private readonly options: MatrixOptions) {}

  async start(hooks: ChannelHooks): Promise<void> {
    const http: Http = new MatrixHttpApi(new TypedEventEmitter() as ConstructorParameters<typeof MatrixHttpApi>[0], {
      baseUrl: this.options.homeserver.replace(/\/+$/, ''),
      prefix: ClientPrefix.V3,
      accessToken: this.options.accessToken,
      useAuthorizationHeader: true,
      onlyData: true as const,
      logger: silent,
    });
    this.http = http;
    const me = await http.authedRequest<{ user_id: string }>(Method.Get, '/account/whoami').catch((error: unknown) => {
      throw asChannelError(error, 'whoami');
    });
    if (me.user_id !== this.options.userId) {
      const whose = `the access token belongs to ${me.user_id}, not to user_id ${this.options.userId}`;
      throw new ChannelError('bad_settings', whose);
    }
    const abort = new AbortController();
    this.abort = abort;
    void this.syncLoop(hooks, abort.signal);
  }

  async stop(): Promise<void> {
    this.abort?.abort();
    this.abort = undefined;
    this.http = undefined;
  }

  /**
   * The `/sync` long poll, run here rather than by the SDK's client: its sync loop keeps timers (a 6-hour capability
   * poll, a timeout per request that is never cleared) that hold a stopped gateway's process open for minutes. A
   * failed poll fails the channel; the supervisor starts it again with its backoff.
   */
  private async syncLoop(hooks: ChannelHooks, signal: AbortSignal): Promise<void> {
    // The first sync has no `since`: it brings each room's latest messages. Those older than the replay window are
    // history; the rest arrived while the gateway was down (one already taken is dropped by its event id).
    const after = Date.now() - REPLAY_WINDOW_MS;
    let since: string | undefined;
    const filter = JSON.stringify({
      room: { timeline: { limit: 20 } },
      presence: { types: [] },
      account_data: { types: [] },
    });
    while (!signal.aborted) {
      let answer: SyncAnswer;
      try {
        const query = { filter, timeout: since ? String(SYNC_TIMEOUT_MS) : '0', ...(since ? { since } : {}) };
        const options = { abortSignal: signal };
        const raw = await this.live().authedRequest<unknown>(Method.Get, '/sync', query, undefined, options);
        answer = syncAnswerSchema.parse(raw);
      } catch (error) {
        if (signal.aborted) return;
        hooks.onFailed(asChannelError(error, 'sync'));
        return;
      }
      if (since === undefined) hooks.onConnected();
      since = answer.next_batch;
      for (const [roomId, entry] of Object.entries(answer.rooms?.join ?? {})) {
        const facts = roomFacts(this.rooms.get(roomId), entry);
        this.rooms.set(roomId, facts);
        for (const event of entry.timeline?.events ?? []) this.inbound(event, roomId, facts, after, hooks);
      }
      for (const [roomId, entry] of Object.entries(answer.rooms?.invite ?? {})) {
        if (this.options.joinOnInvite) await this.accept(roomId, inviteEncrypted(entry.invite_state?.events));
      }
    }
  }

  private inbound(
    event: Record<string, unknown>,
    roomId: string,
    facts: RoomFacts,
    after: number,
    hooks: ChannelHooks,
  ): void {
    const at = event.origin_server_ts;
    if (event.sender === this.options.userId || typeof at !== 'number' || at < after) return;
    if (event.type === 'm.room.encrypted') {
      void this.refuse(roomId);
      return;
    }
    const parsed = matrixMessageSchema.safeParse(event);
    if (!parsed.success) return;
    const message = fromMatrixMessage(parsed.data, roomId, facts.members, this.options.userId);
    if (message) void hooks.onMessage(message);
  }

  /** Joins a room the bot was invited to; an encrypted one is told why the bot leaves it again. */
  private async accept(roomId: string, encrypted: boolean): Promise<void> {
    if (this.joining.has(roomId)) return;
    this.joining.add(roomId);
    const path = `/join/${encodeURIComponent(roomId)}`;
    await this.live()
      .authedRequest(Method.Post, path, undefined, {})
      .catch(() => undefined);
    if (encrypted) await this.refuse(roomId, true);
  }

  private async refuse(roomId: string, leave = false): Promise<void> {
    if (this.refused.has(roomId)) return;
    this.refused.add(roomId);
    await this.put(roomId, { msgtype: 'm.notice', body: ENCRYPTED_REFUSAL }).catch(() => undefined);
    const path = `/rooms/${encodeURIComponent(roomId)}/leave`;
    if (leave) await this.http?.authedRequest(Method.Post, path, undefined, {}).catch(() => undefined);
  }

  async send(replyTo: string, text: string): Promise<string> {
    const { room, thread } = matrixTarget(replyTo);
    return this.put(room, { ...this.content(text), ...inThread(thread) });
  }

  /** An edit is a new event that replaces the old one (`m.replace`); clients show the `m.new_content`. */
  async edit(replyTo: string, messageId: string, text: string): Promise<void> {
    const { room } = matrixTarget(replyTo);
    const fresh = this.content(text);
    const fallback = this.content(`* ${text}`);
    const relation = { rel_type: 'm.replace', event_id: messageId };
    await this.put(room, { ...fallback, 'm.new_content': fresh, 'm.relates_to': relation });
  }

  async sendFile(replyTo: string, file: OutboundFile): Promise<string> {
    const { room, thread } = matrixTarget(replyTo);
    const bytes = await readFile(file.path);
    const name = basename(file.path);
    const type = file.mime ?? 'application/octet-stream';
    // The SDK's `uploadContent` needs Node 22 (Promise.withResolvers): the upload is one authenticated POST instead.
    const uploaded = await honourRateLimit(() =>
      this.live()
        .authedRequest<{ content_uri: string }>(Method.Post, '/upload', { filename: name }, new Uint8Array(bytes), {
          prefix: MediaPrefix.V3,
          headers: { 'Content-Type': type },
        })
        .catch((error: unknown) => {
          throw asChannelError(error, 'upload');
        }),
    );
    return this.put(room, {
      msgtype: MSGTYPES[file.kind],
      body: file.caption || name,
      filename: name,
      url: uploaded.content_uri,
      info: { mimetype: type, size: bytes.length },
      ...inThread(thread),
    });
  }

  async typing(replyTo: string): Promise<void> {
    await this.typingState(replyTo, true);
  }

  async typingDone(replyTo: string): Promise<void> {
    await this.typingState(replyTo, false);
  }

  /** A file a user sent, by its `mxc://` URI, through the authenticated media API with the bot's token. */
  async download(fileId: string): Promise<Buffer> {
    this.live();
    const base = this.options.homeserver.replace(/\/+$/, '');
    const url = getHttpUriForMxc(base, fileId, undefined, undefined, undefined, false, true, true);
    if (!url) throw new ChannelError('platform', 'not a Matrix content URI');
    const response = await fetch(url, { headers: { authorization: `Bearer ${this.options.accessToken}` } }).catch(
      (error: Error) => {
        throw new ChannelError('network', `downloading a Matrix file failed (${error.message})`);
      },
    );
    if (!response.ok) throw new ChannelError('platform', `downloading a Matrix file failed (HTTP ${response.status})`);
    const bytes = Buffer.from(await response.arrayBuffer());
    if (bytes.length > MAX_DOWNLOAD_BYTES) throw new ChannelError('platform', 'the Matrix file is larger than 50 MB');
    return bytes;
  }

  /** HTML goes beside the text only when the Markdown formats something, as Element sends it. */
  private content(text: string): Record<string, unknown> {
    const plain = this.options.messageFormat === 'plain' || renderMarkdown(text, 'plain') === text;
    if (plain) return { msgtype: 'm.text', body: text };
    return { msgtype: 'm.text', body: text, format: 'org.matrix.custom.html', formatted_body: matrixHtml(text) };
  }

  private async typingState(replyTo: string, typing: boolean): Promise<void> {
    const { room } = matrixTarget(replyTo);
    const path = `/rooms/${encodeURIComponent(room)}/typing/${encodeURIComponent(this.options.userId)}`;
    const body = typing ? { typing, timeout: 30_000 } : { typing };
    await this.live()
      .authedRequest(Method.Put, path, undefined, body)
      .catch(() => undefined);
  }

  /** One event, under one transaction id for every try: a repeated PUT is the same event. */
  private async put(room: string, content: Record<string, unknown>): Promise<string> {
    const path = `/rooms/${encodeURIComponent(room)}/send/m.room.message/${encodeURIComponent(randomUUID())}`;
    const sent = await honourRateLimit(() =>
      this.live()
        .authedRequest<{ event_id: string }>(Method.Put, path, undefined, content)
        .catch((error: unknown) => {
          throw asChannelError(error, 'send');
        }),
    );
    return sent.event_id;
  }

  private live(): Http {
    if (!this.http) throw new ChannelError('platform', 'the Matrix channel is not started');
    return this.http;
  }
}
