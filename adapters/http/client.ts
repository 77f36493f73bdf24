import type { IncomingHttpHeaders } from 'node:http';
import type { Dispatcher } from 'undici';
import { DEFAULT_CONNECT_TIMEOUT_MS, dispatcherFor, type Route } from './dispatchers.js';
import { undici, undiciCore } from './undici.js';
import { toldOfWrites } from './when-written.js';

export { dispatcherFor, maskProxy, proxyFor, InvalidProxyError, type Route } from './dispatchers.js';

/**
 * Every request Tern makes goes out here, through undici (Node's own HTTP engine) on the route's dispatcher: keep-alive
 * connections per origin and proxy, `HTTP(S)_PROXY`/`NO_PROXY` by default, an answer size cap, and time limits
 * for the connection, the first byte and each silence in the body apart from one another.
 */
export interface HttpRequest {
  url: string;
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  signal?: AbortSignal;
  /** From the request's start to the answer's status line and headers. */
  firstByteTimeoutMs?: number;
  /** The longest silence between two pieces of the body. */
  idleTimeoutMs?: number;
}

/** An answer whose body is still to be read (`body` is a stream of bytes). */
export interface HttpAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Dispatcher.ResponseData['body'];
}

export type TransportFailure =
  | 'connect_timeout'
  | 'first_byte_timeout'
  | 'idle_timeout'
  | 'too_large'
  | 'proxy'
  | 'network';

/**
 * A request that got no whole answer: the connection failed or timed out, the proxy refused, or the answer was larger
 * than the route allows. The message names the cause and never the URL (a Bot API URL holds the bot's token).
 */
export class TransportError extends Error {
  /**
   * Whether any of the answer had come (its status line): a connection that closed before it was most likely closed
   * unread (a keep-alive connection the server dropped as the request went out), where one cut during the answer was
   * read and acted on.
   */
  answerStarted = false;

  constructor(
    readonly code: TransportFailure,
    message: string,
    readonly systemCode?: string,
    cause?: unknown,
  ) {
    super(message, { cause });
    this.name = 'TransportError';
  }
}

export const DEFAULT_FIRST_BYTE_TIMEOUT_MS = 60_000;
export const DEFAULT_IDLE_TIMEOUT_MS = 60_000;

const seconds = (ms: number | undefined): string => `${Math.round((ms ?? 0) / 100) / 10} s`;

/** undici's failure as ours; an abort the caller asked for stays what it is. */
function transportError(error: unknown, call: HttpRequest, route: Route): unknown {
  if (call.signal?.aborted || error instanceof TransportError || !(error instanceof Error)) return error;
  const code = (error as { code?: unknown }).code;
  switch (code) {
    case 'UND_ERR_CONNECT_TIMEOUT':
      return new TransportError(
        'connect_timeout',
        `no connection within ${seconds(route.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS)}`,
        code,
      );
    case 'UND_ERR_HEADERS_TIMEOUT':
      return new TransportError(
        'first_byte_timeout',
        `no answer within ${seconds(call.firstByteTimeoutMs ?? DEFAULT_FIRST_BYTE_TIMEOUT_MS)}`,
        code,
      );
    case 'UND_ERR_BODY_TIMEOUT':
      return new TransportError(
        'idle_timeout',
        `the answer stopped for ${seconds(call.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS)}`,
        code,
      );
    case 'UND_ERR_RES_EXCEEDED_MAX_SIZE':
      return tooLarge(route);
    case 'UND_ERR_ABORTED':
      // The proxy answered CONNECT with something other than 200 (undici reports it as an aborted request).
      if (/^Proxy response/.test(error.message)) {
        return new TransportError(
          'proxy',
          `the proxy refused the tunnel (HTTP ${/\((\d{3})\)/.exec(error.message)?.[1] ?? '?'})`,
          code,
        );
      }
      break;
    case 'UND_ERR_INVALID_ARG':
      if (/Proxy Authentication Required/.test(error.message))
        return new TransportError('proxy', 'the proxy asks for credentials (407)', code);
      break;
  }
  const cause = (error as { cause?: unknown }).cause;
  const systemCode =
    typeof code === 'string'
      ? code
      : typeof (cause as { code?: unknown })?.code === 'string'
        ? (cause as { code: string }).code
        : 'ECONNRESET';
  const message = error.message.includes(systemCode) ? error.message : `${error.message} (${systemCode})`;
  return new TransportError('network', message, systemCode, error);
}

function tooLarge(route: Route): TransportError {
  return new TransportError(
    'too_large',
    `the answer is larger than ${megabytes(route.maxAnswerBytes ?? 0)}, the most this call accepts`,
  );
}

function megabytes(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${Math.round((bytes / 1024 / 1024) * 10) / 10} MB` : `${bytes} bytes`;
}

/** Sends a request and returns once the answer's headers are in; the body is the caller's to read or drop. */
export async function send(route: Route, call: HttpRequest): Promise<HttpAnswer> {
  let answer: Dispatcher.ResponseData;
  try {
    const { request } = await undiciCore();
    const url = new URL(call.url);
    answer = await request.call(await toldOfWrites(await dispatcherFor(route)), {
      origin: url.origin,
      path: `${url.pathname}${url.search}`,
      method: call.method ?? (call.body === undefined ? 'GET' : 'POST'),
      headers: call.headers,
      body: call.body,
      signal: call.signal,
      headersTimeout: call.firstByteTimeoutMs ?? DEFAULT_FIRST_BYTE_TIMEOUT_MS,
      bodyTimeout: call.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS,
    });
  } catch (error) {
    throw transportError(error, call, route);
  }
  const declared = Number(answer.headers['content-length']);
  if (route.maxAnswerBytes !== undefined && declared > route.maxAnswerBytes) {
    answer.body.destroy();
    throw tooLarge(route);
  }
  return { status: answer.statusCode, headers: answer.headers, body: answer.body };
}

/** Reads the rest of an answer's body, each piece as it arrives; failures are `TransportError`s. */
export async function* bodyPieces(answer: HttpAnswer, call: HttpRequest, route: Route): AsyncGenerator<Buffer> {
  try {
    for await (const piece of answer.body) yield piece as Buffer;
  } catch (error) {
    const failure = transportError(error, call, route);
    if (failure instanceof TransportError) failure.answerStarted = true;
    throw failure;
  } finally {
    answer.body.destroy();
  }
}

/** The whole body as bytes. */
export async function readBytes(answer: HttpAnswer, call: HttpRequest, route: Route): Promise<Buffer> {
  const pieces: Buffer[] = [];
  for await (const piece of bodyPieces(answer, call, route)) pieces.push(piece);
  return Buffer.concat(pieces);
}

/** A whole request: status, headers and the body as UTF-8 text. */
export async function sendForText(
  route: Route,
  call: HttpRequest,
): Promise<{ status: number; headers: IncomingHttpHeaders; text: string }> {
  const answer = await send(route, call);
  return {
    status: answer.status,
    headers: answer.headers,
    text: (await readBytes(answer, call, route)).toString('utf8'),
  };
}

/** A whole request: status, headers and the body as bytes. */
export async function sendForBytes(
  route: Route,
  call: HttpRequest,
): Promise<{ status: number; headers: IncomingHttpHeaders; bytes: Buffer }> {
  const answer = await send(route, call);
  return { status: answer.status, headers: answer.headers, bytes: await readBytes(answer, call, route) };
}

/**
 * A WHATWG `fetch` on the route's dispatcher, for libraries that take one (grammY's Bot API client, the MCP SDK's
 * HTTP transports). The connection and the proxy come from the route; time limits are the library's, by its signal,
 * with undici's defaults (300 s to the first byte and between pieces) as the backstop.
 */
export function fetchOn(route: Route): typeof globalThis.fetch {
  type UndiciFetch = Awaited<ReturnType<typeof undici>>['fetch'];
  const fetchWith = async (input: Parameters<typeof globalThis.fetch>[0], init?: RequestInit) => {
    const [{ fetch }, dispatcher] = await Promise.all([undici(), dispatcherFor(route)]);
    return fetch(input as Parameters<UndiciFetch>[0], {
      ...(init as Parameters<UndiciFetch>[1]),
      dispatcher: await toldOfWrites(dispatcher),
    });
  };
  return fetchWith as unknown as typeof globalThis.fetch;
}
