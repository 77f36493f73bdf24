import { createHmac, timingSafeEqual } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import * as z from 'zod';
import { sendForBytes, sendForText } from '../http/client.js';
import { CHAT_COMMANDS } from './command-names.js';
import {
  ChannelError,
  type Channel,
  type ChannelCapabilities,
  type ChannelHooks,
  type ChannelMessage,
  type OutboundFile,
  type WebhookAnswer,
  type WebhookRequest,
} from './channel.js';
import { renderMarkdown } from './markdown.js';
import { honourRateLimit } from './rate-limit.js';
import { inReplayWindow, REPLAY_WINDOW_MS } from './replay-window.js';

export interface WhatsAppCloudOptions {
  phoneNumberId: string;
  accessToken: string;
  /** The Meta app's secret: it signs every webhook (`X-Hub-Signature-256`). */
  appSecret: string;
  /** What the webhook's verification request (`hub.verify_token`) must carry. */
  verifyToken: string;
  /** `settings.base_url`: the Graph API root (`https://graph.facebook.com`, an emulator). */
  apiBase?: string;
  /** `settings.api_version`, e.g. `v21.0`. */
  apiVersion?: string;
}

/** WhatsApp's longest text message. */
export const WHATSAPP_MAX_LENGTH = 4096;
const MAX_DOWNLOAD_BYTES = 100 * 1024 * 1024;

const mediaSchema = z.looseObject({
  id: z.string(),
  mime_type: z.string().optional(),
  caption: z.string().optional(),
  filename: z.string().optional(),
  voice: z.boolean().optional(),
});
const messageSchema = z.looseObject({
  from: z.string(),
  id: z.string(),
  timestamp: z.string(),
  type: z.string(),
  text: z.looseObject({ body: z.string() }).optional(),
  image: mediaSchema.optional(),
  video: mediaSchema.optional(),
  audio: mediaSchema.optional(),
  document: mediaSchema.optional(),
});
const webhookSchema = z.looseObject({
  object: z.string(),
  entry: z.array(
    z.looseObject({
      changes: z.array(z.looseObject({ value: z.looseObject({ messages: z.array(z.unknown()).optional() }) })),
    }),
  ),
});
type CloudMessage = z.infer<typeof messageSchema>;

const json = (status: number, body: unknown): WebhookAnswer => ({ status, body: JSON.stringify(body) });

/** A Cloud API message as a channel message: every chat is direct (the Cloud API serves one-to-one chats). */
export function fromCloudMessage(message: CloudMessage): ChannelMessage | undefined {
  const base = {
    messageId: message.id,
    chat: `direct:${message.from}`,
    replyTo: message.from,
    sender: message.from,
    senderAliases: [message.from, `+${message.from}`],
    mentioned: false,
  };
  const file = message.image ?? message.video ?? message.document;
  if (message.type === 'text' && message.text) return { ...base, text: message.text.body };
  if (message.type === 'audio' && message.audio)
    return {
      ...base,
      text: '',
      audio: [
        {
          fileId: message.audio.id,
          mime: message.audio.mime_type ?? 'audio/ogg',
          name: message.audio.voice ? 'voice.ogg' : 'audio.ogg',
        },
      ],
    };
  if (file && ['image', 'video', 'document'].includes(message.type)) {
    const kind = message.type === 'image' ? 'image' : message.type === 'video' ? 'video' : 'file';
    const name = file.filename ?? (kind === 'image' ? 'image.jpg' : kind === 'video' ? 'video.mp4' : 'file');
    return {
      ...base,
      text: file.caption ?? '',
      media: [{ kind, fileId: file.id, mime: file.mime_type ?? 'application/octet-stream', name }],
    };
  }
  return undefined;
}

/**
 * WhatsApp through Meta's Cloud API: messages arrive as webhooks signed with the app secret (`X-Hub-Signature-256`),
 * replies go out through the Graph API on Tern's HTTP client. WhatsApp shows `*bold*`, `_italic_`, `~strike~`; a
 * message cannot be edited.
 */
export class WhatsAppCloudChannel implements Channel {
  readonly kind = 'whatsapp';
  readonly capabilities: ChannelCapabilities = {
    commands: CHAT_COMMANDS,
    streaming: false,
    edits: false,
    maxMessageLength: WHATSAPP_MAX_LENGTH,
    maxCaptionLength: 1024,
    reportsWrites: true,
  };
  private hooks: ChannelHooks | undefined;
  /** The last message each user sent: typing and read receipts name it. */
  private readonly lastInbound = new Map<string, string>();

  constructor(private readonly options: WhatsAppCloudOptions) {}

  private url(path: string): string {
    const base = (this.options.apiBase ?? 'https://graph.facebook.com').replace(/\/+$/, '');
    return `${base}/${this.options.apiVersion ?? 'v21.0'}/${path}`;
  }

  /** One Graph API call; a 429 (or Meta's throttling codes) becomes `rate_limited` with the answer's Retry-After. */
  private async call(
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
    raw?: Buffer,
  ): Promise<Record<string, unknown>> {
    const answer = await sendForText(
      {},
      {
        url: this.url(path),
        method: body === undefined && raw === undefined ? 'GET' : 'POST',
        headers: {
          authorization: `Bearer ${this.options.accessToken}`,
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
          ...headers,
        },
        ...(body !== undefined ? { body: JSON.stringify(body) } : raw !== undefined ? { body: raw } : {}),
      },
    ).catch((error: Error) => {
      throw new ChannelError('network', `cannot reach the WhatsApp Cloud API (${error.message})`);
    });
    let parsed: Record<string, unknown> = {};
    try {
      parsed = JSON.parse(answer.text) as Record<string, unknown>;
    } catch {
      // Not JSON: the status says enough.
    }
    if (answer.status < 300) return parsed;
    const error = (parsed.error ?? {}) as { message?: string; code?: number };
    const what =
      `WhatsApp Cloud API ${path.split('/').pop()}: HTTP ` +
      `${answer.status}${error.message ? ` ${error.message}` : ''}`;
    if (answer.status === 429 || error.code === 130429 || error.code === 131056 || error.code === 80007) {
      const after = Number(answer.headers['retry-after']);
      const retryAfterMs = Number.isFinite(after) && after > 0 ? after * 1000 : 1000;
      throw new ChannelError('rate_limited', what, { delivered: 'no', retry: true, retryAfterMs });
    }
    throw new ChannelError(answer.status === 401 ? 'unauthorized' : 'platform', what);
  }

  /** The phone number's record: the token and the number id are good. */
  async start(hooks: ChannelHooks): Promise<void> {
    await this.call(`${this.options.phoneNumberId}?fields=display_phone_number`);
    this.hooks = hooks;
    hooks.onConnected();
  }

  async stop(): Promise<void> {
    this.hooks = undefined;
  }

  private signed(request: WebhookRequest): boolean {
    const header = request.headers['x-hub-signature-256'];
    if (typeof header !== 'string' || !header.startsWith('sha256=')) return false;
    const expected = createHmac('sha256', this.options.appSecret).update(request.body).digest();
    const given = Buffer.from(header.slice('sha256='.length), 'hex');
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  /**
   * GET is Meta's verification (`hub.verify_token` must match; the challenge is echoed); POST carries messages, signed
   * with the app secret (401 and nothing taken otherwise). Messages older than the replay window are dropped, and a
   * delivery of nothing but old messages is refused. The answer waits until the messages are in the log.
   */
  async webhook(request: WebhookRequest): Promise<WebhookAnswer> {
    if (request.method === 'GET') {
      const { query } = request;
      if (query.get('hub.mode') === 'subscribe' && query.get('hub.verify_token') === this.options.verifyToken) {
        return { status: 200, body: query.get('hub.challenge') ?? '', contentType: 'text/plain' };
      }
      return json(403, { error: 'the verify token does not match' });
    }
    if (request.method !== 'POST') return json(405, { error: 'only GET and POST are served' });
    if (!this.signed(request)) return json(401, { error: 'bad signature' });
    let parsed: z.infer<typeof webhookSchema>;
    try {
      parsed = webhookSchema.parse(JSON.parse(request.body.toString('utf8')));
    } catch {
      return json(400, { error: 'not a WhatsApp webhook body' });
    }
    const messages = parsed.entry
      .flatMap((e) => e.changes.flatMap((c) => c.value.messages ?? []))
      .flatMap((raw) => {
        const message = messageSchema.safeParse(raw);
        return message.success ? [message.data] : [];
      });
    const fresh = messages.filter((m) => inReplayWindow(Number(m.timestamp) * 1000));
    if (messages.length > 0 && fresh.length === 0)
      return json(401, { error: `every message is older than ${REPLAY_WINDOW_MS / 1000} s (a replay)` });
    const hooks = this.hooks;
    if (!hooks) return json(503, { error: 'the channel is not running' });
    const kept: Array<void | Promise<void>> = [];
    for (const raw of fresh) {
      const message = fromCloudMessage(raw);
      if (!message) continue;
      this.lastInbound.set(message.replyTo, raw.id);
      kept.push(hooks.onMessage(message));
    }
    await Promise.all(kept);
    return json(200, {});
  }

  private async message(to: string, content: Record<string, unknown>): Promise<string> {
    const sent = await honourRateLimit(() =>
      this.call(`${this.options.phoneNumberId}/messages`, {
        messaging_product: 'whatsapp',
        recipient_type: 'individual',
        to,
        ...content,
      }),
    );
    const id = (sent.messages as Array<{ id?: string }> | undefined)?.[0]?.id;
    return id ?? '';
  }

  async send(replyTo: string, text: string): Promise<string> {
    return this.message(replyTo, {
      type: 'text',
      text: { preview_url: false, body: renderMarkdown(text, 'whatsapp') },
    });
  }

  async edit(): Promise<void> {
    throw new ChannelError('platform', 'a WhatsApp message cannot be edited');
  }

  /** The file goes to `/media` first (multipart), then as a message naming the media id, the caption under it. */
  async sendFile(replyTo: string, file: OutboundFile): Promise<string> {
    const bytes = await readFile(file.path).catch((error: Error) => {
      throw new ChannelError('platform', `cannot read ${basename(file.path)} to send it (${error.message})`);
    });
    const type = file.kind === 'file' ? 'document' : file.kind;
    const form = new FormData();
    form.set('messaging_product', 'whatsapp');
    form.set('type', file.mime ?? 'application/octet-stream');
    form.set('file', new Blob([bytes], { type: file.mime ?? 'application/octet-stream' }), basename(file.path));
    const encoded = new Response(form);
    const body = Buffer.from(await encoded.arrayBuffer());
    const uploaded = await honourRateLimit(() =>
      this.call(
        `${this.options.phoneNumberId}/media`,
        undefined,
        { 'content-type': encoded.headers.get('content-type') ?? '' },
        body,
      ),
    );
    const media = {
      id: String(uploaded.id ?? ''),
      ...(file.caption ? { caption: file.caption } : {}),
      ...(type === 'document' ? { filename: basename(file.path) } : {}),
    };
    return this.message(replyTo, { type, [type]: media });
  }

  /** WhatsApp's typing indicator hangs on the user's last message (and marks it read). */
  async typing(replyTo: string): Promise<void> {
    const last = this.lastInbound.get(replyTo);
    if (!last) return;
    await this.call(`${this.options.phoneNumberId}/messages`, {
      messaging_product: 'whatsapp',
      status: 'read',
      message_id: last,
      typing_indicator: { type: 'text' },
    }).catch(() => undefined);
  }

  /** A media id names a short-lived URL, fetched with the same token. */
  async download(fileId: string): Promise<Buffer> {
    const media = await this.call(fileId);
    if (typeof media.url !== 'string') throw new ChannelError('platform', `WhatsApp gave no URL for media ${fileId}`);
    const answer = await sendForBytes(
      { maxAnswerBytes: MAX_DOWNLOAD_BYTES },
      { url: media.url, headers: { authorization: `Bearer ${this.options.accessToken}` } },
    ).catch((error: Error) => {
      throw new ChannelError('network', `downloading WhatsApp media failed (${error.message})`);
    });
    if (answer.status >= 300)
      throw new ChannelError('platform', `downloading WhatsApp media failed (HTTP ${answer.status})`);
    return answer.bytes;
  }
}
