import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { Api, GrammyError, HttpError, InputFile } from 'grammy/web';
import { sendForBytes, TransportError, type Route } from '../http/client.js';
import { botApiFetch, NotJsonAnswerError } from './bot-api-fetch.js';
import { CHAT_COMMANDS } from './command-names.js';
import {
  ChannelError,
  NotKeptError,
  type Channel,
  type ChannelCapabilities,
  type ChannelHooks,
  type Choice,
  type OutboundFile,
  type SendFailure,
} from './channel.js';
import { honourRateLimit } from './rate-limit.js';
import { fromTelegramUpdate, telegramTarget, telegramUpdateSchema, type BotIdentity } from './telegram-update.js';

export interface TelegramOptions {
  token: string;
  /** Overrides the Bot API root (`settings.base_url`), e.g. a local emulator. */
  baseUrl?: string;
  /** Seconds a getUpdates call may wait for updates. */
  pollTimeoutSeconds?: number;
  /** A poll that answers later than its timeout plus this is a stalled connection. */
  stallGraceMs?: number;
  /** Where the stall check's timer runs (the gateway's clock); a plain timer by default. */
  timer?: { after(ms: number, run: () => void): { cancel(): void } };
  /** Pause after an empty answer that came back early (servers that do not hold long polls). */
  idlePauseMs?: number;
  /** Pause before asking again for updates the gateway could not keep (`NotKeptError`); 1 s by default. */
  notKeptPauseMs?: number;
  /** `settings.proxy`: every Bot API call and file download goes through it; absent, the environment's proxy. */
  proxy?: string;
}

/** grammY types its signals with an older AbortSignal declaration; Node's own is what it receives at run time. */
type ApiSignal = Parameters<Api['getMe']>[0];
const apiSignal = (signal: AbortSignal): ApiSignal => signal as unknown as ApiSignal;

/** A file the Bot API serves is at most 20 MB; a larger answer is not a file of Telegram's. */
const MAX_DOWNLOAD_BYTES = 20 * 1024 * 1024;
/** `sendPhoto` takes photos up to 10 MB in these types; other images go as documents, which keep every byte. */
const MAX_PHOTO_BYTES = 10 * 1024 * 1024;
const PHOTO_TYPES: ReadonlySet<string | undefined> = new Set(['image/png', 'image/jpeg', 'image/webp']);

const sleep = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    const wake = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', wake);
      resolve();
    };
    const timer = setTimeout(wake, ms);
    signal.addEventListener('abort', wake, { once: true });
  });

function plainTimer(ms: number, run: () => void): { cancel(): void } {
  const timer = setTimeout(run, ms);
  return { cancel: () => clearTimeout(timer) };
}

/** Telegram's `retry_after` is seconds; one that does not say waits a second. */
const DEFAULT_RETRY_AFTER_S = 1;

/**
 * A Bot API failure as the gateway acts on it. 429 (flood control) did not take the message and says when to try
 * again; another 4xx refused it for good; a 5xx may have taken it (Telegram gives no way to ask), and so may a call
 * whose connection broke after it was written (the outbox knows whether it was: `whenWritten`).
 */
function asChannelError(error: unknown): ChannelError {
  if (error instanceof ChannelError) return error;
  if (error instanceof GrammyError) {
    const message = `Bot API ${error.method}: ${error.description}`;
    if (error.error_code === 429) {
      const retryAfterMs = (error.parameters.retry_after ?? DEFAULT_RETRY_AFTER_S) * 1000;
      return new ChannelError('rate_limited', message, { delivered: 'no', retry: true, retryAfterMs });
    }
    if (error.error_code >= 500) return new ChannelError('platform', message, { delivered: 'unknown', retry: true });
    if (error.error_code === 400 && CANNOT_PARSE.test(error.description)) {
      return new ChannelError('rejected_format', message, { delivered: 'no', retry: false });
    }
    const code = error.error_code === 401 ? 'unauthorized' : 'platform';
    return new ChannelError(code, message, { delivered: 'no', retry: false });
  }
  if (error instanceof HttpError) {
    const message = `cannot reach the Bot API (${(error.error as Error)?.message ?? 'network error'})`;
    return new ChannelError('network', message, transportFailure(error.error));
  }
  return new ChannelError('platform', (error as Error)?.message ?? String(error));
}

/**
 * A call that got no Bot API answer. A connection closed before any answer came was closed unread (a keep-alive
 * connection dropped as the call went out, the common case under load): not delivered. A timeout, a cut during the
 * answer, a proxy's error page of 5xx: the Bot API may have acted on it.
 */
function transportFailure(cause: unknown): SendFailure {
  if (cause instanceof TransportError && cause.code === 'network' && !cause.answerStarted) {
    return { delivered: 'no', retry: true };
  }
  if (cause instanceof NotJsonAnswerError && cause.status < 500) {
    return { delivered: 'no', retry: cause.status === 429 };
  }
  return { delivered: 'unknown', retry: true };
}

/** Telegram's answer to HTML whose entities it cannot parse: the same text may pass as plain text. */
const CANNOT_PARSE = /can't parse entities/i;

/** Telegram's answer to an edit that changes nothing: the message already shows the text (an edit tried again). */
const NOT_MODIFIED = /message is not modified/i;

/** Telegram through grammY's Bot API client, by long polling; one instance per bot token. */
export class TelegramChannel implements Channel {
  readonly kind = 'telegram';
  readonly capabilities: ChannelCapabilities = {
    commands: CHAT_COMMANDS,
    streaming: true,
    maxMessageLength: 4096,
    maxCaptionLength: 1024,
    reportsWrites: true,
    redelivers: true,
  };
  private readonly api: Api;
  private readonly route: Route;
  private controller = new AbortController();
  private loop: Promise<void> | undefined;

  constructor(private readonly options: TelegramOptions) {
    this.route = options.proxy ? { proxy: options.proxy } : {};
    this.api = new Api(options.token, {
      fetch: botApiFetch(this.route),
      ...(options.baseUrl ? { apiRoot: options.baseUrl.replace(/\/+$/, '') } : {}),
    });
  }

  async start(hooks: ChannelHooks): Promise<void> {
    this.controller = new AbortController();
    const me = await this.api.getMe(apiSignal(this.controller.signal)).catch((error: unknown) => {
      throw asChannelError(error);
    });
    const bot: BotIdentity = { id: me.id, username: me.username };
    hooks.onConnected();
    this.loop = this.poll(bot, hooks, this.controller.signal);
  }

  async stop(): Promise<void> {
    this.controller.abort();
    await this.loop;
  }

  /** Markdown goes as Telegram's HTML; a text whose entities the Bot API refuses goes again as plain text. */
  async send(replyTo: string, text: string): Promise<string> {
    const { chat_id, message_thread_id } = telegramTarget(replyTo);
    const thread = message_thread_id === undefined ? {} : { message_thread_id };
    const sent = await this.formatted(text, (body, other) =>
      this.api.sendMessage(chat_id, body, { ...thread, ...other }),
    );
    return String(sent.message_id);
  }

  /**
   * A call with the text as HTML, again as plain text if the entities are refused. A send's 429 goes up: the outbox
   * waits out its `retry_after` and counts the try against `send_attempts`. An edit (repeatable, and streamed edits
   * do not pass the outbox) is made again here after the wait.
   */
  private async formatted<T>(
    text: string,
    call: (body: string, other: { parse_mode?: 'HTML' }) => Promise<T>,
    rateLimits: 'honour' | 'raise' = 'raise',
  ): Promise<T> {
    const attempt = (body: string, other: { parse_mode?: 'HTML' }) => (): Promise<T> =>
      call(body, other).catch((error: unknown) => {
        throw asChannelError(error);
      });
    const once = (body: string, other: { parse_mode?: 'HTML' }): Promise<T> =>
      rateLimits === 'honour' ? honourRateLimit(attempt(body, other)) : attempt(body, other)();
    // The Markdown parser (marked builds its grammar as it loads) comes with the first reply, not the gateway's start.
    const { renderMarkdown } = await import('./markdown.js');
    return once(renderMarkdown(text, 'telegram-html'), { parse_mode: 'HTML' }).catch((error: unknown) => {
      if (error instanceof ChannelError && error.code === 'rejected_format')
        return once(renderMarkdown(text, 'plain'), {});
      throw error;
    });
  }

  /** An image as a photo (`sendPhoto`), audio and video as such, anything else as a document; the caption under it. */
  async sendFile(replyTo: string, file: OutboundFile): Promise<string> {
    const bytes = await readFile(file.path).catch((error: Error) => {
      throw new ChannelError('platform', `cannot read ${basename(file.path)} to send it (${error.message})`);
    });
    const { chat_id, message_thread_id } = telegramTarget(replyTo);
    const other = {
      ...(file.caption ? { caption: file.caption } : {}),
      ...(message_thread_id === undefined ? {} : { message_thread_id }),
    };
    const upload = (): Promise<{ message_id: number }> => {
      const input = new InputFile(bytes, basename(file.path));
      if (file.kind === 'image' && PHOTO_TYPES.has(file.mime) && bytes.length <= MAX_PHOTO_BYTES)
        return this.api.sendPhoto(chat_id, input, other);
      if (file.kind === 'image' && file.mime === 'image/gif') return this.api.sendAnimation(chat_id, input, other);
      // Ogg (Opus) is what Telegram plays as a voice message (speech the send_tts tool made); other audio is a track.
      if (file.kind === 'audio' && file.mime === 'audio/ogg') return this.api.sendVoice(chat_id, input, other);
      if (file.kind === 'audio') return this.api.sendAudio(chat_id, input, other);
      if (file.kind === 'video') return this.api.sendVideo(chat_id, input, other);
      return this.api.sendDocument(chat_id, input, other);
    };
    const sent = await upload().catch((error: unknown) => {
      throw asChannelError(error);
    });
    return String(sent.message_id);
  }

  /** An inline keyboard, one row; a press comes back as a `callback_query` update carrying the button's reply. */
  async sendChoices(replyTo: string, text: string, choices: readonly Choice[]): Promise<string> {
    const inline_keyboard = [choices.map((choice) => ({ text: choice.label, callback_data: choice.reply }))];
    const { chat_id, message_thread_id } = telegramTarget(replyTo);
    const thread = message_thread_id === undefined ? {} : { message_thread_id };
    const sent = await this.formatted(text, (body, other) =>
      this.api.sendMessage(chat_id, body, { ...thread, ...other, reply_markup: { inline_keyboard } }),
    );
    return String(sent.message_id);
  }

  /** An edit that finds the text already there succeeded before (its answer was lost): an edit is safe to try again. */
  async edit(replyTo: string, messageId: string, text: string): Promise<void> {
    const { chat_id } = telegramTarget(replyTo);
    await this.formatted(
      text,
      (body, other) =>
        this.api.editMessageText(chat_id, Number(messageId), body, other).then(
          () => undefined,
          (error: unknown) => {
            if (error instanceof GrammyError && error.error_code === 400 && NOT_MODIFIED.test(error.description))
              return;
            throw error;
          },
        ),
      'honour',
    );
  }

  /** Files come from `<api root>/file/bot<token>/<file_path>` after getFile names the path. */
  async download(fileId: string): Promise<Buffer> {
    const file = await this.api.getFile(fileId).catch((error: unknown) => {
      throw asChannelError(error);
    });
    if (!file.file_path) throw new ChannelError('platform', `Bot API getFile gave no path for ${fileId}`);
    const root = (this.options.baseUrl ?? 'https://api.telegram.org').replace(/\/+$/, '');
    const answer = await sendForBytes(
      { ...this.route, maxAnswerBytes: MAX_DOWNLOAD_BYTES },
      { url: `${root}/file/bot${this.options.token}/${file.file_path}` },
    ).catch((error: Error) => {
      throw new ChannelError('network', `downloading a Telegram file failed (${error.message})`);
    });
    if (answer.status >= 300)
      throw new ChannelError('platform', `downloading a Telegram file failed (HTTP ${answer.status})`);
    return answer.bytes;
  }

  async typing(replyTo: string): Promise<void> {
    const { chat_id, message_thread_id } = telegramTarget(replyTo);
    await this.api
      .sendChatAction(chat_id, 'typing', message_thread_id === undefined ? {} : { message_thread_id })
      .catch(() => undefined);
  }

  private async poll(bot: BotIdentity, hooks: ChannelHooks, signal: AbortSignal): Promise<void> {
    const timeout = this.options.pollTimeoutSeconds ?? 30;
    let offset: number | undefined;
    while (!signal.aborted) {
      try {
        const started = Date.now();
        const updates = await this.getUpdates(offset, timeout, signal);
        const kept: Array<{ id: number; kept: Promise<void> }> = [];
        for (const raw of updates) {
          const parsed = telegramUpdateSchema.safeParse(raw);
          const id = parsed.success ? parsed.data.update_id : (raw as { update_id?: unknown } | null)?.update_id;
          if (typeof id !== 'number') continue;
          // An update of a shape the channel does not read is acknowledged: asked for again, it would come back
          // forever.
          if (!parsed.success) {
            kept.push({ id, kept: Promise.resolve() });
            continue;
          }
          // A press waits for its answer (the button's spinner) until the Bot API hears it was taken.
          if (parsed.data.callback_query)
            void this.api.answerCallbackQuery(parsed.data.callback_query.id).catch(() => undefined);
          const message = fromTelegramUpdate(parsed.data, bot);
          kept.push({ id, kept: Promise.resolve(message ? hooks.onMessage(message) : undefined) });
        }
        // The next getUpdates acknowledges these updates (its offset): only once they are kept, so a crash before
        // loses none (Telegram hands them out again, and the gateway drops what it had already kept). An update the
        // gateway could not keep (its log cannot write) is not acknowledged, nor any after it: Telegram hands them out
        // again at the next call, after a pause.
        const outcomes = await Promise.allSettled(kept.map((k) => k.kept));
        const refused = outcomes.findIndex((outcome) => outcome.status === 'rejected');
        if (refused < 0) {
          if (kept.length > 0) offset = kept.at(-1)!.id + 1;
        } else {
          const reason = (outcomes[refused] as PromiseRejectedResult).reason;
          if (!(reason instanceof NotKeptError)) throw reason;
          offset = kept[refused]!.id;
          await sleep(this.options.notKeptPauseMs ?? 1000, signal);
          continue;
        }
        if (updates.length === 0 && Date.now() - started < timeout * 500)
          await sleep(this.options.idlePauseMs ?? 50, signal);
      } catch (error) {
        if (!signal.aborted) hooks.onFailed(asChannelError(error));
        return;
      }
    }
  }

  /** One long poll, abandoned as stalled when it outlives its own timeout by the grace period. */
  private async getUpdates(offset: number | undefined, timeout: number, signal: AbortSignal): Promise<unknown[]> {
    const call = new AbortController();
    const cancel = (): void => call.abort();
    signal.addEventListener('abort', cancel, { once: true });
    let stalled = false;
    const watch = (): void => {
      stalled = true;
      call.abort();
    };
    const graceMs = timeout * 1000 + (this.options.stallGraceMs ?? 10_000);
    const watchdog = this.options.timer ? this.options.timer.after(graceMs, watch) : plainTimer(graceMs, watch);
    try {
      return await this.api.getUpdates(
        { timeout, ...(offset !== undefined ? { offset } : {}) },
        apiSignal(call.signal),
      );
    } catch (error) {
      throw stalled ? new ChannelError('stalled', `getUpdates gave no answer within ${timeout} s`) : error;
    } finally {
      watchdog.cancel();
      signal.removeEventListener('abort', cancel);
    }
  }
}
