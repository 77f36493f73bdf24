import { randomUUID } from 'node:crypto';
import { HTTPFetchError, messagingApi, validateSignature } from '@line/bot-sdk';
import { CHAT_COMMANDS } from './command-names.js';
import {
  ChannelError,
  type Channel,
  type ChannelCapabilities,
  type ChannelHooks,
  type WebhookAnswer,
  type WebhookRequest,
} from './channel.js';
import { fromLineEvent, lineEvents, lineWebhookSchema } from './line-events.js';
import { renderMarkdown } from './markdown.js';
import { honourRateLimit } from './rate-limit.js';
import { inReplayWindow, REPLAY_WINDOW_MS } from './replay-window.js';

export interface LineOptions {
  channelSecret: string;
  channelAccessToken: string;
  /** `settings.webhook_path`: where LINE posts (the peer's field); `/webhooks/line/<name>` without it. */
  webhookPath?: string;
  /** `settings.base_url`: the Messaging API root (`https://api.line.me`), also for content (an emulator). */
  apiBase?: string;
  /** `settings.data_base_url`: where message content is fetched (`https://api-data.line.me`). */
  dataBase?: string;
}

/** LINE's longest text message. */
export const LINE_MAX_LENGTH = 5000;
/** A reply token is good for one reply within a minute of the event; past this it is not tried. */
const REPLY_TOKEN_MS = 50_000;

const answer = (status: number, body: unknown): WebhookAnswer => ({ status, body: JSON.stringify(body) });

/** `<chat>#<message id>` (an answer to that message) or `<chat>` (a text to the chat) split. */
function targetOf(replyTo: string): { chat: string; messageId?: string } {
  const hash = replyTo.indexOf('#');
  return hash < 0 ? { chat: replyTo } : { chat: replyTo.slice(0, hash), messageId: replyTo.slice(hash + 1) };
}

function asChannelError(error: unknown, what: string): ChannelError {
  if (error instanceof ChannelError) return error;
  if (error instanceof HTTPFetchError) {
    if (error.status === 429) {
      const retryAfter = Number(error.headers.get('retry-after'));
      const retryAfterMs = Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : 1000;
      return new ChannelError('rate_limited', `LINE ${what}: rate limited`, {
        delivered: 'no',
        retry: true,
        retryAfterMs,
      });
    }
    return new ChannelError(
      error.status === 401 ? 'unauthorized' : 'platform',
      `LINE ${what}: HTTP ${error.status} ${error.body.slice(0, 200)}`,
    );
  }
  return new ChannelError('network', `LINE ${what}: ${(error as Error)?.message ?? String(error)}`);
}

/**
 * LINE through @line/bot-sdk's Messaging API client: updates arrive as signed webhooks on the gateway's HTTP server,
 * replies go with the event's reply token while it is fresh and by push after that. LINE shows plain text and cannot
 * edit a message.
 */
export class LineChannel implements Channel {
  readonly kind = 'line';
  readonly capabilities: ChannelCapabilities = {
    commands: CHAT_COMMANDS,
    streaming: false,
    edits: false,
    maxMessageLength: LINE_MAX_LENGTH,
  };
  readonly webhookPath?: string;
  private readonly client: messagingApi.MessagingApiClient;
  private readonly blobs: messagingApi.MessagingApiBlobClient;
  private hooks: ChannelHooks | undefined;
  /** The unused reply token of each user's message, by message id, with when it came. */
  private readonly replyTokens = new Map<string, { token: string; at: number }>();

  constructor(private readonly options: LineOptions) {
    if (options.webhookPath) this.webhookPath = `/${options.webhookPath.replace(/^\/+/, '')}`;
    const base = options.apiBase?.replace(/\/+$/, '');
    this.client = new messagingApi.MessagingApiClient({
      channelAccessToken: options.channelAccessToken,
      ...(base ? { baseURL: base } : {}),
    });
    const data = (options.dataBase ?? options.apiBase)?.replace(/\/+$/, '');
    this.blobs = new messagingApi.MessagingApiBlobClient({
      channelAccessToken: options.channelAccessToken,
      ...(data ? { baseURL: data } : {}),
    });
  }

  /** One authenticated call (the bot's info) says the token works; the webhook then takes updates. */
  async start(hooks: ChannelHooks): Promise<void> {
    await this.client.getBotInfo().catch((error: unknown) => {
      throw asChannelError(error, 'bot info');
    });
    this.hooks = hooks;
    hooks.onConnected();
  }

  async stop(): Promise<void> {
    this.hooks = undefined;
  }

  /**
   * A webhook delivery: the signature (`x-line-signature`, HMAC-SHA256 of the body with the channel secret) must
   * match, else 401 and nothing is taken; events older than the replay window are dropped, and a delivery whose every
   * event is that old is refused. The answer waits until the messages are in the log, so LINE's redelivery covers a
   * crash before that.
   */
  async webhook(request: WebhookRequest): Promise<WebhookAnswer> {
    if (request.method !== 'POST') return answer(405, { error: 'only POST is served' });
    const signature = request.headers['x-line-signature'];
    if (typeof signature !== 'string' || !validateSignature(request.body, this.options.channelSecret, signature)) {
      return answer(401, { error: 'bad signature' });
    }
    let body: unknown;
    try {
      body = JSON.parse(request.body.toString('utf8'));
    } catch {
      return answer(400, { error: 'the body is not JSON' });
    }
    const parsed = lineWebhookSchema.safeParse(body);
    if (!parsed.success) return answer(400, { error: 'not a LINE webhook body' });
    const events = lineEvents(parsed.data);
    const fresh = events.filter((event) => inReplayWindow(event.timestamp));
    if (events.length > 0 && fresh.length === 0)
      return answer(401, { error: `every event is older than ${REPLAY_WINDOW_MS / 1000} s (a replay)` });
    const hooks = this.hooks;
    if (!hooks) return answer(503, { error: 'the channel is not running' });
    for (const [id, reply] of this.replyTokens)
      if (Date.now() - reply.at >= REPLY_TOKEN_MS) this.replyTokens.delete(id);
    const kept: Array<void | Promise<void>> = [];
    for (const event of fresh) {
      const message = fromLineEvent(event);
      if (!message) continue;
      if (event.replyToken) this.replyTokens.set(message.messageId, { token: event.replyToken, at: Date.now() });
      kept.push(hooks.onMessage(message));
    }
    await Promise.all(kept);
    return answer(200, {});
  }

  /**
   * Plain text (LINE has no markup). An answer goes on the fresh reply token of the message it answers (named after
   * `#`), never on a later message's; else, and for a text to the chat alone, by push (one retry key per text).
   */
  async send(replyTo: string, text: string): Promise<string> {
    const messages = [{ type: 'text' as const, text: renderMarkdown(text, 'plain') }];
    const { chat, messageId } = targetOf(replyTo);
    const reply = messageId === undefined ? undefined : this.replyTokens.get(messageId);
    if (messageId !== undefined) this.replyTokens.delete(messageId);
    if (reply && Date.now() - reply.at < REPLY_TOKEN_MS) {
      // A token LINE no longer takes (expired, used) is no failure: the push below carries the text.
      const sent = await honourRateLimit(() =>
        this.client.replyMessage({ replyToken: reply.token, messages }).catch((error: unknown) => {
          throw asChannelError(error, 'reply');
        }),
      ).catch((error: unknown) => {
        if (error instanceof ChannelError && error.code === 'rate_limited') throw error;
        return undefined;
      });
      const id = sent?.sentMessages?.[0]?.id;
      if (id) return id;
    }
    // The same retry key on every try: LINE takes a push once, however often it is asked.
    const retryKey = randomUUID();
    const sent = await honourRateLimit(() =>
      this.client.pushMessage({ to: chat, messages }, retryKey).catch((error: unknown) => {
        throw asChannelError(error, 'push');
      }),
    );
    return sent.sentMessages?.[0]?.id ?? '';
  }

  async edit(): Promise<void> {
    throw new ChannelError('platform', 'LINE cannot edit a message');
  }

  /** LINE's loading animation, shown in one-to-one chats only (user ids start with U). */
  async typing(replyTo: string): Promise<void> {
    const { chat } = targetOf(replyTo);
    if (!chat.startsWith('U')) return;
    await this.client.showLoadingAnimation({ chatId: chat, loadingSeconds: 20 }).catch(() => undefined);
  }

  /** A picture, video, file or recording a user sent, by its message id. */
  async download(fileId: string): Promise<Buffer> {
    const stream = await this.blobs.getMessageContent(fileId).catch((error: unknown) => {
      throw asChannelError(error, 'message content');
    });
    const chunks: Buffer[] = [];
    for await (const chunk of stream) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }
}
