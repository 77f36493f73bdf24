import type { IncomingHttpHeaders } from 'node:http';
import { promisify } from 'node:util';
import { withHead } from './body-slab.js';
import type { ParsedAnswer } from './http1-answer.js';
import type { Connection, Exchange } from './http1-connection.js';
import { requestHead, targetOf } from './http1-request.js';

/** A whole answer to one POST: status, headers and the body as text. */
export interface PostedAnswer {
  statusCode: number;
  readonly headers: IncomingHttpHeaders;
  body: string;
}

/** The headers are read from the raw list when asked for: a model answer's are only read when it failed. */
class Answer implements PostedAnswer {
  private read?: IncomingHttpHeaders;
  constructor(readonly statusCode: number, private readonly raw: string[], readonly body: string) {}

  get headers(): IncomingHttpHeaders {
    return (this.read ??= headersOf(this.raw));
  }
}

/** A transport failure (connection, reset, the whole request outlasting its time) with the system's code. */
export class TransportError extends Error {
  constructor(readonly code: string, message: string) {
    super(message);
    this.name = 'TransportError';
  }
}

/** The request ended by its caller's signal; named and coded as Node names the abort of a request. */
export class RequestAbortedError extends Error {
  readonly code = 'ABORT_ERR';
  constructor(reason: unknown) {
    super('The operation was aborted', { cause: reason });
    this.name = 'AbortError';
  }
}

type Zlib = typeof import('node:zlib');

/**
 * node:zlib is loaded by the first compressed answer: no `accept-encoding` is sent, so most processes never
 * get one, and the gateway would otherwise load it before it is ready.
 */
let zlib: Promise<Zlib> | undefined;
const decoderOf = (pick: (loaded: Zlib) => (data: Buffer) => Promise<Buffer>) => (data: Buffer): Promise<Buffer> =>
  (zlib ??= import('node:zlib')).then((loaded) => pick(loaded)(data));

const decoders = new Map<unknown, (data: Buffer) => Promise<Buffer>>([
  ['gzip', decoderOf((loaded) => promisify(loaded.gunzip))],
  ['deflate', decoderOf((loaded) => promisify(loaded.inflate))],
  ['br', decoderOf((loaded) => promisify(loaded.brotliDecompress))],
]);

const CONTENT_ENCODING = 'content-encoding';

/** `headersOf(raw)['content-encoding']`, without reading the other headers. */
function encodingOf(raw: string[]): string | undefined {
  let encoding: string | undefined;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!;
    if (name.length !== CONTENT_ENCODING.length || name.toLowerCase() !== CONTENT_ENCODING) continue;
    const value = raw[i + 1]!;
    encoding = encoding === undefined ? value : `${encoding}, ${value}`;
  }
  return encoding;
}

function headersOf(raw: string[]): IncomingHttpHeaders {
  const headers: IncomingHttpHeaders = {};
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    const value = raw[i + 1]!;
    const known = headers[name];
    if (known === undefined) headers[name] = name === 'set-cookie' ? [value] : value;
    else if (Array.isArray(known)) known.push(value);
    else headers[name] = `${known}, ${value}`;
  }
  return headers;
}

/**
 * One request's answer as its connection hands it over (the connection keeps the request's time limit), and
 * its abort. It is the signal's listener itself (`handleEvent`) so a call allocates no closures for it.
 */
class AnswerReader implements Exchange {
  private settled = false;

  constructor(
    private readonly resolve: (answer: PostedAnswer) => void,
    private readonly reject: (error: unknown) => void,
    private readonly signal: AbortSignal | undefined,
    private readonly connection: Connection,
  ) {
    signal?.addEventListener('abort', this);
  }

  /** The caller aborted: it hears the abort at once, and the connection closes. */
  handleEvent(): void {
    this.failed(new RequestAbortedError(this.signal?.reason));
    this.connection.destroy();
  }

  answered(answer: ParsedAnswer): void {
    if (this.settled) return;
    const decode = decoders.get(encodingOf(answer.rawHeaders));
    if (decode === undefined) return this.answer(answer, answer.body);
    decode(answer.body).then((text) => this.answer(answer, text), (error: Error) => this.failed(error));
  }

  failed(error: Error & { code?: unknown }): void {
    if (this.settled) return;
    this.finish();
    if (error instanceof TransportError || error instanceof RequestAbortedError) {
      this.reject(error);
      return;
    }
    this.reject(new TransportError(typeof error.code === 'string' ? error.code : 'ECONNRESET', error.message));
  }

  private answer(answer: ParsedAnswer, data: Buffer): void {
    if (this.settled) return;
    this.finish();
    this.resolve(new Answer(answer.statusCode, answer.rawHeaders, data.toString('utf8')));
  }

  private finish(): void {
    this.settled = true;
    this.signal?.removeEventListener('abort', this);
  }
}

/**
 * POSTs a body over a keep-alive HTTP/1.1 connection (`http1-connection.ts`) and reads the whole answer;
 * `timeoutMs` bounds the request from start to the last byte. The model call is the hottest outbound request:
 * head and body go out in one write (one buffer when the body came from `joinedBody`) and the answer is read
 * without a general-purpose client's machinery (see README.md here). An abort by `signal` rejects with the
 * abort error itself; a header node:http would refuse rejects with `InvalidHeaderError` and sends nothing.
 */
export function postText(url: string, headers: Record<string, string>, body: string | Buffer, options: { signal?: AbortSignal; timeoutMs: number }): Promise<PostedAnswer> {
  const { signal } = options;
  if (signal?.aborted) return Promise.reject(new RequestAbortedError(signal.reason));
  return new Promise<PostedAnswer>((resolve, reject) => {
    const target = targetOf(url);
    const head = requestHead(target, headers, typeof body === 'string' ? Buffer.byteLength(body) : body.length);
    const connection = target.origin.acquire();
    const exchange = new AnswerReader(resolve, reject, signal, connection);
    const whole = typeof body === 'string' ? undefined : withHead(head, body);
    if (whole === undefined) connection.send(head, body, exchange, options.timeoutMs);
    else connection.sendWhole(whole, exchange, options.timeoutMs);
  });
}
