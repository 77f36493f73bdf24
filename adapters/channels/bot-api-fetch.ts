import { postText, type PostedAnswer } from '../http/json-post.js';

/** The part of a fetch `Response` grammY reads: `json()`, and `ok` and `status` for anyone who logs it. */
export interface BotApiResponse {
  readonly ok: boolean;
  readonly status: number;
  json(): Promise<unknown>;
}

/** An answer whose body is not JSON (a proxy's HTML error page); its body is left out, as it may quote the URL and its token. */
export class NotJsonAnswerError extends Error {
  readonly code = 'BOT_API_NOT_JSON';
  constructor(readonly status: number, contentType: string | undefined) {
    super(`the Bot API answered HTTP ${status}${contentType ? ` (${contentType})` : ''} where JSON was expected`);
    this.name = 'NotJsonAnswerError';
  }
}

class BotApiAnswer implements BotApiResponse {
  constructor(private readonly answer: PostedAnswer) {}

  get status(): number {
    return this.answer.statusCode;
  }

  get ok(): boolean {
    return this.answer.statusCode >= 200 && this.answer.statusCode < 300;
  }

  json(): Promise<unknown> {
    try {
      return Promise.resolve(JSON.parse(this.answer.body));
    } catch {
      return Promise.reject(new NotJsonAnswerError(this.answer.statusCode, this.answer.headers['content-type']));
    }
  }
}

/**
 * The headers of every JSON call: grammY's are `content-type: application/json` and `connection: keep-alive`,
 * which the transport writes itself. One object for all calls, so each URL's request head is written once.
 */
const JSON_HEADERS = { 'content-type': 'application/json' };

/**
 * A `fetch` for grammY's `Api` (its `fetch` option). A POST with a string body (every call grammY makes but an
 * upload) goes over our keep-alive HTTP/1.1 client (`adapters/http/json-post.ts`), which costs a fraction of
 * node-fetch over node:http per call and loads no module of its own; an upload (a stream body) goes to the
 * global `fetch`. `timeoutMs` bounds a call from start to last byte; grammY's own `timeoutSeconds` and the
 * long poll's watchdog abort through the signal, so it must lie beyond both.
 */
export function botApiFetch(timeoutMs: number): (url: string, init: RequestInit) => Promise<BotApiResponse> {
  return (url, init) => {
    const { body, signal } = init;
    if (init.method !== 'POST' || typeof body !== 'string') return globalThis.fetch(url, init);
    return postText(url, JSON_HEADERS, body, signal ? { signal, timeoutMs } : { timeoutMs }).then((answer) => new BotApiAnswer(answer));
  };
}
