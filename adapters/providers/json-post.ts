import { request as httpRequest, type IncomingHttpHeaders, type IncomingMessage, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { urlToHttpOptions } from 'node:url';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { Readable } from 'node:stream';

/** A whole answer to one POST: status, headers and the body as text. */
export interface PostedAnswer {
  statusCode: number;
  headers: IncomingHttpHeaders;
  body: string;
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

// A process calls the same few endpoints over and over: each URL is parsed once. The cap only bounds a
// process that somehow calls many.
const targets = new Map<string, RequestOptions>();
const MAX_TARGETS = 256;

function targetOf(url: string): RequestOptions {
  let target = targets.get(url);
  if (target === undefined) {
    if (targets.size >= MAX_TARGETS) targets.clear();
    target = urlToHttpOptions(new URL(url));
    targets.set(url, target);
  }
  return target;
}

function decoded(response: IncomingMessage): Readable {
  switch (response.headers['content-encoding']) {
    case 'gzip':
      return response.pipe(createGunzip());
    case 'deflate':
      return response.pipe(createInflate());
    case 'br':
      return response.pipe(createBrotliDecompress());
    default:
      return response;
  }
}

function readAll(stream: Readable): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    stream.once('error', reject);
  });
}

/**
 * POSTs a body on the keep-alive global agent and reads the whole answer; `timeoutMs` bounds the request from
 * start to the last byte. The model call is the hottest outbound request: node:http here costs a third of
 * the CPU of got for the same call (see README.md here). An abort by `signal` rejects with
 * the abort error itself.
 */
export function postText(url: string, headers: Record<string, string>, body: string, options: { signal?: AbortSignal; timeoutMs: number }): Promise<PostedAnswer> {
  const target = targetOf(url);
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  const { signal } = options;
  return new Promise<PostedAnswer>((resolve, reject) => {
    const outgoing = send({ ...target, method: 'POST', headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) } });
    // Our own listener rather than the request's `signal` option: Node ties that one to the stream's end with
    // `finished()`, which cost more CPU per model call than the rest of the request set-up.
    const onAbort = () => outgoing.destroy(new RequestAbortedError(signal?.reason));
    const settle = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    };
    const fail = (error: Error & { code?: unknown }) => {
      settle();
      const code = typeof error.code === 'string' ? error.code : 'ECONNRESET';
      reject(error instanceof TransportError || signal?.aborted ? error : new TransportError(code, error.message));
    };
    const timer = setTimeout(() => {
      const error = new TransportError('ETIMEDOUT', `Timeout awaiting 'request' for ${options.timeoutMs}ms`);
      fail(error);
      outgoing.destroy(error);
    }, options.timeoutMs);
    outgoing.on('error', fail);
    outgoing.once('response', (response) => {
      response.on('error', fail);
      readAll(decoded(response)).then((text) => {
        settle();
        resolve({ statusCode: response.statusCode ?? 0, headers: response.headers, body: text });
      }, fail);
    });
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
    outgoing.end(body);
  });
}
