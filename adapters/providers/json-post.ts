import { request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
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
  const target = new URL(url);
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<PostedAnswer>((resolve, reject) => {
    const outgoing = send(target, {
      method: 'POST',
      headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      signal: options.signal,
    });
    const fail = (error: Error & { code?: unknown }) => {
      clearTimeout(timer);
      const code = typeof error.code === 'string' ? error.code : 'ECONNRESET';
      reject(error instanceof TransportError || options.signal?.aborted ? error : new TransportError(code, error.message));
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
        clearTimeout(timer);
        resolve({ statusCode: response.statusCode ?? 0, headers: response.headers, body: text });
      }, fail);
    });
    outgoing.end(body);
  });
}
