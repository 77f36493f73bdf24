import { fetchOn, sendForText, type Route } from '../http/client.js';

/** The part of a fetch `Response` grammY reads: `json()`, and `ok` and `status` for anyone who logs it. */
export interface BotApiResponse {
  readonly ok: boolean;
  readonly status: number;
  json(): Promise<unknown>;
}

/**
 * An answer whose body is not JSON (a proxy's HTML error page); its body is left out, as it may quote the URL and its
 * token.
 */
export class NotJsonAnswerError extends Error {
  readonly code = 'BOT_API_NOT_JSON';
  constructor(
    readonly status: number,
    contentType: string | null,
  ) {
    super(`the Bot API answered HTTP ${status}${contentType ? ` (${contentType})` : ''} where JSON was expected`);
    this.name = 'NotJsonAnswerError';
  }
}

/**
 * A Bot API call that got no answer; the message is the cause's (`connect ECONNREFUSED host:port`), never the URL with
 * the token.
 */
export class BotApiTransportError extends Error {
  readonly code = 'BOT_API_TRANSPORT';
  constructor(message: string) {
    super(message);
    this.name = 'BotApiTransportError';
  }
}

function transportError(error: unknown): unknown {
  if (!(error instanceof TypeError) || error.cause === undefined) return error;
  const cause = error.cause as { message?: unknown };
  return new BotApiTransportError(typeof cause.message === 'string' ? cause.message : String(error.cause));
}

/**
 * grammY makes its signals with the `abort-controller` package, whose signal undici's fetch does not accept: the
 * call gets a Node signal that follows it.
 */
type AnySignal = Pick<AbortSignal, 'aborted' | 'reason' | 'addEventListener'>;

function nodeSignal(given: RequestInit['signal']): AbortSignal | undefined {
  if (!given || given instanceof AbortSignal) return given ?? undefined;
  const signal: AnySignal = given;
  const controller = new AbortController();
  if (signal.aborted) controller.abort(signal.reason);
  else signal.addEventListener('abort', () => controller.abort(signal.reason), { once: true });
  return controller.signal;
}

function answered(status: number, contentType: string | null, text: () => Promise<string>): BotApiResponse {
  return {
    ok: status >= 200 && status < 300,
    status,
    json: async () => {
      const body = await text();
      try {
        return JSON.parse(body) as unknown;
      } catch {
        throw new NotJsonAnswerError(status, contentType);
      }
    },
  };
}

/** No time limit of its own: grammY's `timeoutSeconds` and the long poll's watchdog end a call through its signal. */
const UNLIMITED = 0;

/**
 * A `fetch` for grammY's `Api` (its `fetch` option), on the channel's route (its `proxy`, or the environment's) so
 * the Bot API calls share the channel's keep-alive connections. A call with a JSON body (every call but an upload)
 * is a plain request; an upload's stream body goes through undici's `fetch` on the same dispatcher.
 */
export function botApiFetch(route: Route = {}): (url: string, init: RequestInit) => Promise<BotApiResponse> {
  const fetch = fetchOn(route);
  return async (url, init) => {
    const signal = nodeSignal(init.signal);
    if (typeof init.body === 'string') {
      const call = {
        url,
        method: 'POST' as const,
        headers: { 'content-type': 'application/json' },
        body: init.body,
        signal,
        firstByteTimeoutMs: UNLIMITED,
        idleTimeoutMs: UNLIMITED,
      };
      const answer = await sendForText(route, call);
      const contentType = answer.headers['content-type'];
      return answered(answer.status, typeof contentType === 'string' ? contentType : null, () =>
        Promise.resolve(answer.text),
      );
    }
    const response = await fetch(url, { ...init, signal }).catch((error: unknown) => {
      throw transportError(error);
    });
    return answered(response.status, response.headers.get('content-type'), () =>
      response.text().catch((error: unknown) => {
        throw transportError(error);
      }),
    );
  };
}
