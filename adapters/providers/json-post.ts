import type { IncomingHttpHeaders } from 'node:http';
import { promisify } from 'node:util';
import { brotliDecompress, gunzip, inflate } from 'node:zlib';
import type { Dispatcher } from 'undici';

/** A whole answer to one POST: status, headers and the body as text. */
export interface PostedAnswer {
  statusCode: number;
  readonly headers: IncomingHttpHeaders;
  body: string;
}

/** The headers are read from undici's raw list when asked for: a model answer's are only read when it failed. */
class Answer implements PostedAnswer {
  private read?: IncomingHttpHeaders;
  constructor(readonly statusCode: number, private readonly raw: Buffer[], readonly body: string) {}

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

interface Target {
  origin: string;
  path: string;
  /** `user:password@` of the URL, sent as Basic authorization unless the caller sends its own. */
  basic?: string;
}

// A process calls the same few endpoints over and over: each URL is parsed once. The cap only bounds a
// process that somehow calls many.
const targets = new Map<string, Target>();
const MAX_TARGETS = 256;

function targetOf(url: string): Target {
  let target = targets.get(url);
  if (target === undefined) {
    if (targets.size >= MAX_TARGETS) targets.clear();
    const parsed = new URL(url);
    const credentials = parsed.username || parsed.password
      ? Buffer.from(`${decodeURIComponent(parsed.username)}:${decodeURIComponent(parsed.password)}`).toString('base64')
      : undefined;
    target = { origin: parsed.origin, path: `${parsed.pathname}${parsed.search}`, ...(credentials ? { basic: `Basic ${credentials}` } : {}) };
    targets.set(url, target);
  }
  return target;
}

// undici's agent costs ~50 ms to load: it is loaded by the first model call, not by every start. Its own
// timeouts are off because `timeoutMs` bounds the whole request here.
let agent: Dispatcher | undefined;
let loading: Promise<Dispatcher> | undefined;

function loadAgent(): Promise<Dispatcher> {
  loading ??= import('undici').then(({ Agent }) => (agent = new Agent({ connectTimeout: 0, headersTimeout: 0, bodyTimeout: 0 })));
  return loading;
}

const decoders = new Map<unknown, (data: Buffer) => Promise<Buffer>>([
  ['gzip', promisify(gunzip)],
  ['deflate', promisify(inflate)],
  ['br', promisify(brotliDecompress)],
]);

const CONTENT_ENCODING = 'content-encoding';

// Node's own names for the failures undici names its way, so messages read as they did over node:http.
const nodeCodes: Record<string, string> = { UND_ERR_SOCKET: 'ECONNRESET' };

/** `headersOf(raw)['content-encoding']`, without reading the other headers. */
function encodingOf(raw: Buffer[]): string | undefined {
  let encoding: string | undefined;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!;
    if (name.length !== CONTENT_ENCODING.length || name.toString('latin1').toLowerCase() !== CONTENT_ENCODING) continue;
    const value = raw[i + 1]!.toString('latin1');
    encoding = encoding === undefined ? value : `${encoding}, ${value}`;
  }
  return encoding;
}

function headersOf(raw: Buffer[]): IncomingHttpHeaders {
  const headers: IncomingHttpHeaders = {};
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!.toString('latin1').toLowerCase();
    const value = raw[i + 1]!.toString('latin1');
    const known = headers[name];
    if (known === undefined) headers[name] = name === 'set-cookie' ? [value] : value;
    else if (Array.isArray(known)) known.push(value);
    else headers[name] = `${known}, ${value}`;
  }
  return headers;
}

/**
 * Header names in lower case, a later one replacing an earlier one that differs only in case (an entry's
 * `Authorization` replaces the key's `authorization`), as node:http set them; undici would send both.
 */
function lowerCased(headers: Record<string, string>): Record<string, string> {
  const sent: Record<string, string> = {};
  for (const name in headers) sent[name.toLowerCase()] = headers[name]!;
  return sent;
}

function timedOut(reader: AnswerReader, timeoutMs: number): void {
  reader.stop(new TransportError('ETIMEDOUT', `Timeout awaiting 'request' for ${timeoutMs}ms`));
}

/**
 * One request's answer as undici hands it over, with the request's own time limit and abort. It is the
 * signal's listener itself (`handleEvent`) so a call allocates no closures for it.
 */
class AnswerReader implements Dispatcher.DispatchHandlers {
  private statusCode = 0;
  private rawHeaders: Buffer[] = [];
  private readonly chunks: Buffer[] = [];
  private abortRequest?: (error: Error) => void;
  private stopped?: Error;
  private settled = false;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly resolve: (answer: PostedAnswer) => void,
    private readonly reject: (error: unknown) => void,
    private readonly signal: AbortSignal | undefined,
    timeoutMs: number,
  ) {
    this.timer = setTimeout(timedOut, timeoutMs, this, timeoutMs);
    signal?.addEventListener('abort', this, { once: true });
  }

  handleEvent(): void {
    this.stop(new RequestAbortedError(this.signal?.reason));
  }

  /** Ends the request from this side (abort, time limit): the caller hears `error` at once. */
  stop(error: Error): void {
    this.fail(error);
    this.stopped = error;
    this.abortRequest?.(error);
  }

  onConnect(abort: (error?: Error) => void): void {
    this.abortRequest = abort;
    if (this.stopped) abort(this.stopped);
  }

  onHeaders(statusCode: number, raw: Buffer[]): boolean {
    // 1xx answers are interim; the real one follows.
    if (statusCode < 200) return true;
    this.statusCode = statusCode;
    this.rawHeaders = raw;
    return true;
  }

  onData(chunk: Buffer): boolean {
    this.chunks.push(chunk);
    return true;
  }

  onComplete(): void {
    if (this.settled) return;
    const data = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks);
    const decode = decoders.get(encodingOf(this.rawHeaders));
    if (decode === undefined) return this.answer(data);
    decode(data).then((text) => this.answer(text), (error: Error) => this.fail(error));
  }

  onError(error: Error & { code?: unknown }): void {
    this.fail(error);
  }

  private answer(data: Buffer): void {
    if (this.settled) return;
    this.finish();
    this.resolve(new Answer(this.statusCode, this.rawHeaders, data.toString('utf8')));
  }

  private fail(error: Error & { code?: unknown }): void {
    if (this.settled) return;
    this.finish();
    // A header undici refuses (a newline in a key) is the caller's mistake, thrown as node:http threw it.
    if (error instanceof TransportError || error instanceof RequestAbortedError || error.code === 'UND_ERR_INVALID_ARG') {
      this.reject(error);
      return;
    }
    const code = typeof error.code === 'string' ? (nodeCodes[error.code] ?? error.code) : 'ECONNRESET';
    this.reject(new TransportError(code, error.message));
  }

  private finish(): void {
    this.settled = true;
    clearTimeout(this.timer);
    this.signal?.removeEventListener('abort', this);
  }
}

function send(dispatcher: Dispatcher, url: string, headers: Record<string, string>, body: string | Buffer, options: { signal?: AbortSignal; timeoutMs: number }): Promise<PostedAnswer> {
  const { signal } = options;
  if (signal?.aborted) return Promise.reject(new RequestAbortedError(signal.reason));
  const target = targetOf(url);
  const sent = lowerCased(headers);
  if (target.basic !== undefined) sent.authorization ??= target.basic;
  return new Promise<PostedAnswer>((resolve, reject) => {
    const reader = new AnswerReader(resolve, reject, signal, options.timeoutMs);
    dispatcher.dispatch({ origin: target.origin, path: target.path, method: 'POST', headers: sent, body }, reader);
  });
}

/**
 * POSTs a body over undici's keep-alive agent and reads the whole answer; `timeoutMs` bounds the request from
 * start to the last byte. The model call is the hottest outbound request: undici's dispatcher costs about
 * half the CPU of node:http for the same call (see README.md here). An abort by `signal` rejects with the
 * abort error itself.
 */
export function postText(url: string, headers: Record<string, string>, body: string | Buffer, options: { signal?: AbortSignal; timeoutMs: number }): Promise<PostedAnswer> {
  if (agent !== undefined) return send(agent, url, headers, body, options);
  return loadAgent().then((loaded) => send(loaded, url, headers, body, options));
}
