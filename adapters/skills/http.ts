// The registries' one way out: undici's `request`, with the caps and time limits a registry's config sets.
// Kept to this file so the shared HTTP client module can take its place.
import { createHash } from 'node:crypto';
import type { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { Agent, interceptors, ProxyAgent, request, type Dispatcher } from 'undici';

export type RegistryHttpErrorCode = 'http_status' | 'too_large' | 'timeout' | 'network' | 'bad_json';

export class RegistryHttpError extends Error {
  constructor(readonly code: RegistryHttpErrorCode, message: string, readonly status?: number) {
    super(message);
    this.name = 'RegistryHttpError';
  }
}

export interface RegistryHttpOptions {
  timeoutMs: number;
  maxBytes: number;
  /** Sent as `Authorization: Bearer <token>`; undici drops it when a redirect leaves the origin. */
  token?: string;
  /** An HTTP proxy URL; empty: straight to the host. */
  proxy?: string;
  accept?: string;
  signal?: AbortSignal;
}

const MAX_REDIRECTS = 5;
const dispatchers = new Map<string, Dispatcher>();

/** One dispatcher per proxy (and one without), each following redirects (GitHub archives answer 302). */
function dispatcherFor(proxy: string | undefined): Dispatcher {
  const key = proxy ?? '';
  let found = dispatchers.get(key);
  if (!found) {
    const base = key === '' ? new Agent() : new ProxyAgent(key);
    found = base.compose(interceptors.redirect({ maxRedirections: MAX_REDIRECTS }));
    dispatchers.set(key, found);
  }
  return found;
}

function headersOf(options: RegistryHttpOptions): Record<string, string> {
  const headers: Record<string, string> = { accept: options.accept ?? 'application/json', 'user-agent': 'tern-skills' };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  return headers;
}

function failure(error: unknown, url: string, timeoutMs: number): RegistryHttpError {
  if (error instanceof RegistryHttpError) return error;
  const code = (error as { code?: string }).code ?? '';
  const name = (error as Error).name;
  if (name === 'TimeoutError' || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
    return new RegistryHttpError('timeout', `no answer from ${new URL(url).host} within ${timeoutMs / 1000} s`);
  }
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  const message = cause?.message ?? (error as Error).message;
  const detail = cause?.code ?? code;
  return new RegistryHttpError('network', `${new URL(url).host}: ${detail && !message.includes(detail) ? `${detail} ` : ''}${message}`);
}

function limitText(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${Math.round((bytes / 1024 / 1024) * 10) / 10} MB` : `${bytes} bytes`;
}

/** Ends an answer's body early; the abort it reports is expected, not a failure. */
function drop(body: Dispatcher.ResponseData['body']): void {
  body.on('error', () => undefined);
  body.destroy();
}

async function open(url: string, options: RegistryHttpOptions, signal: AbortSignal): Promise<Dispatcher.ResponseData> {
  const answer = await request(url, {
    method: 'GET',
    headers: headersOf(options),
    dispatcher: dispatcherFor(options.proxy || undefined),
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
    signal,
  });
  if (answer.statusCode < 200 || answer.statusCode >= 300) {
    const text = (await answer.body.text().catch(() => '')).slice(0, 200).trim();
    throw new RegistryHttpError('http_status', `HTTP ${answer.statusCode} from ${url}${text ? `: ${text}` : ''}`, answer.statusCode);
  }
  const length = Number(answer.headers['content-length']);
  if (Number.isFinite(length) && length > options.maxBytes) {
    drop(answer.body);
    throw new RegistryHttpError('too_large', `${url} is ${limitText(length)}, over the limit of ${limitText(options.maxBytes)}`);
  }
  return answer;
}

/** The body's chunks, failing once together they pass `maxBytes` (a header may say less than is sent). */
async function* capped(answer: Dispatcher.ResponseData, maxBytes: number, what: string): AsyncGenerator<Buffer> {
  let size = 0;
  for await (const chunk of answer.body as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) {
      drop(answer.body);
      throw new RegistryHttpError('too_large', `${what} passed the limit of ${limitText(maxBytes)}`);
    }
    yield chunk;
  }
}

/** A JSON answer, read whole but never past `maxBytes`, within `timeoutMs` from start to end. */
export async function getJson(url: string, options: RegistryHttpOptions): Promise<unknown> {
  const deadline = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
  try {
    const answer = await open(url, options, signal);
    const chunks: Buffer[] = [];
    for await (const chunk of capped(answer, options.maxBytes, `the answer of ${url}`)) chunks.push(chunk);
    const text = Buffer.concat(chunks).toString('utf8');
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new RegistryHttpError('bad_json', `the answer of ${url} is not JSON`);
    }
  } catch (error) {
    throw failure(error, url, options.timeoutMs);
  }
}

export interface Downloaded {
  bytes: number;
  sha256: string;
}

/**
 * Streams a file into `sink`, hashing it on the way; stops and fails once it passes `maxBytes`. The time limit
 * is on the headers and on each wait for more of the body, so a large file on a slow line still arrives.
 */
export async function download(url: string, sink: Writable, options: RegistryHttpOptions): Promise<Downloaded> {
  const hash = createHash('sha256');
  let bytes = 0;
  try {
    const answer = await open(url, { ...options, accept: options.accept ?? 'application/zip, application/octet-stream' }, options.signal ?? new AbortController().signal);
    for await (const chunk of capped(answer, options.maxBytes, `the download from ${url}`)) {
      bytes += chunk.length;
      hash.update(chunk);
      if (!sink.write(chunk)) await new Promise<void>((resolve) => sink.once('drain', resolve));
    }
    sink.end();
    await finished(sink);
    return { bytes, sha256: hash.digest('hex') };
  } catch (error) {
    sink.destroy();
    throw failure(error, url, options.timeoutMs);
  }
}
