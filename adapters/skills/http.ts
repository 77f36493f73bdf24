// The registries' calls, on the runtime's one HTTP client (`adapters/http/client.ts`): the route carries the proxy
// and the answer cap, each call its time limits and the bearer token.
import { createHash } from 'node:crypto';
import type { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import {
  bodyPieces,
  readBytes,
  send,
  TransportError,
  type HttpAnswer,
  type HttpRequest,
  type Route,
} from '../http/client.js';

export type RegistryHttpErrorCode = 'http_status' | 'too_large' | 'timeout' | 'network' | 'bad_json';

export class RegistryHttpError extends Error {
  constructor(
    readonly code: RegistryHttpErrorCode,
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'RegistryHttpError';
  }
}

export interface RegistryHttpOptions {
  timeoutMs: number;
  maxBytes: number;
  /** Sent as `Authorization: Bearer <token>`, never to another origin than the one asked. */
  token?: string;
  /** A proxy URL; empty: the environment's `HTTP(S)_PROXY`, or none. */
  proxy?: string;
  accept?: string;
  signal?: AbortSignal;
}

/** GitHub answers an archive with a redirect to its download host. */
const MAX_REDIRECTS = 5;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

function limitText(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${Math.round((bytes / 1024 / 1024) * 10) / 10} MB` : `${bytes} bytes`;
}

function failure(error: unknown, url: string, options: RegistryHttpOptions): RegistryHttpError {
  if (error instanceof RegistryHttpError) return error;
  const host = new URL(url).host;
  if ((error as Error).name === 'TimeoutError')
    return new RegistryHttpError('timeout', `${host}: no answer within ${options.timeoutMs / 1000} s`);
  if (error instanceof TransportError) {
    if (error.code === 'too_large')
      return new RegistryHttpError('too_large', `${url} is over the limit of ${limitText(options.maxBytes)}`);
    const timedOut =
      error.code === 'connect_timeout' || error.code === 'first_byte_timeout' || error.code === 'idle_timeout';
    return new RegistryHttpError(timedOut ? 'timeout' : 'network', `${host}: ${error.message}`);
  }
  return new RegistryHttpError('network', `${host}: ${(error as Error).message}`);
}

/**
 * A GET on the shared client; a redirect is followed (the token goes only to the origin first asked) and an error
 * status fails with the start of its body.
 */
async function get(
  url: string,
  options: RegistryHttpOptions,
  accept: string,
  signal: AbortSignal | undefined,
): Promise<{ answer: HttpAnswer; call: HttpRequest; route: Route }> {
  const route: Route = { maxAnswerBytes: options.maxBytes, ...(options.proxy ? { proxy: options.proxy } : {}) };
  const origin = new URL(url).origin;
  let target = url;
  for (let hop = 0; ; hop++) {
    const headers: Record<string, string> = { accept, 'user-agent': 'tern-skills' };
    if (options.token && new URL(target).origin === origin) headers.authorization = `Bearer ${options.token}`;
    const call: HttpRequest = {
      url: target,
      headers,
      firstByteTimeoutMs: options.timeoutMs,
      idleTimeoutMs: options.timeoutMs,
      ...(signal ? { signal } : {}),
    };
    const answer = await send(route, call);
    const location = answer.headers.location;
    if (REDIRECTS.has(answer.status) && typeof location === 'string' && hop < MAX_REDIRECTS) {
      await readBytes(answer, call, route).catch(() => undefined);
      target = new URL(location, target).href;
      continue;
    }
    if (answer.status < 200 || answer.status >= 300) {
      const text = (await readBytes(answer, call, route).catch(() => Buffer.alloc(0)))
        .toString('utf8')
        .slice(0, 200)
        .trim();
      throw new RegistryHttpError(
        'http_status',
        `HTTP ${answer.status} from ${target}${text ? `: ${text}` : ''}`,
        answer.status,
      );
    }
    return { answer, call, route };
  }
}

/** A JSON answer, read whole but never past `maxBytes`, within `timeoutMs` from start to end. */
export async function getJson(url: string, options: RegistryHttpOptions): Promise<unknown> {
  const deadline = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
  try {
    const { answer, call, route } = await get(url, options, options.accept ?? 'application/json', signal);
    const text = (await readBytes(answer, call, route)).toString('utf8');
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new RegistryHttpError('bad_json', `the answer of ${url} is not JSON`);
    }
  } catch (error) {
    throw failure(error, url, options);
  }
}

export interface Downloaded {
  bytes: number;
  sha256: string;
}

/**
 * Streams a file into `sink`, hashing it on the way; fails once it passes `maxBytes`. The time limit is on the
 * first byte and on each pause in the body, so a large file on a slow line still arrives.
 */
export async function download(url: string, sink: Writable, options: RegistryHttpOptions): Promise<Downloaded> {
  const hash = createHash('sha256');
  let bytes = 0;
  try {
    const { answer, call, route } = await get(
      url,
      options,
      options.accept ?? 'application/zip, application/octet-stream',
      options.signal,
    );
    for await (const piece of bodyPieces(answer, call, route)) {
      bytes += piece.length;
      hash.update(piece);
      if (!sink.write(piece)) await new Promise<void>((resolve) => sink.once('drain', resolve));
    }
    sink.end();
    await finished(sink);
    return { bytes, sha256: hash.digest('hex') };
  } catch (error) {
    // The sink (a file still being opened, perhaps) is closed before the caller removes its folder.
    sink.destroy();
    await finished(sink).catch(() => undefined);
    throw failure(error, url, options);
  }
}
