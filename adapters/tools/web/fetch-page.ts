import type { LookupFunction } from 'node:net';
import { bodyPieces, proxyFor, send, TransportError, type HttpRequest, type Route } from '../../http/client.js';
import { ToolError } from '../tool.js';

export interface Page {
  status: number;
  contentType: string;
  location?: string;
  body: Buffer;
  truncated: boolean;
}

export interface FetchLimits {
  limitBytes: number;
  /** To the first byte, and for each pause in the body. */
  timeoutMs: number;
  lookup: LookupFunction;
  signal: AbortSignal;
  /** `tools.web.proxy`; absent, the environment's. */
  proxy?: string;
}

/** The guard's own refusal when the guarded DNS lookup refused; anything else as a tool error that names it. */
function failure(error: unknown, url: URL): unknown {
  if (!(error instanceof TransportError)) return error;
  if (error.cause instanceof ToolError) return error.cause;
  return new ToolError('fetch_failed', `${url.host} could not be fetched: ${error.message}`);
}

/**
 * Through a proxy the proxy resolves the name, out of the guarded lookup's reach: the name goes through the lookup
 * first, so a name that resolves to a private address is refused before the proxy is asked (the proxy may still
 * resolve it differently; only a direct connection checks the very address it connects to).
 */
function checkName(url: URL, lookup: LookupFunction): Promise<void> {
  return new Promise((resolve, reject) =>
    lookup(url.hostname.replace(/^\[|\]$/g, ''), { all: true }, (error) => (error ? reject(error) : resolve())),
  );
}

/** One request, no redirects followed, the body cut at `limitBytes`. */
export async function fetchPage(url: URL, limits: FetchLimits): Promise<Page> {
  const route: Route = { lookup: limits.lookup, ...(limits.proxy ? { proxy: limits.proxy } : {}) };
  if (proxyFor(url.href, route)) await checkName(url, limits.lookup);
  const call: HttpRequest = {
    url: url.href,
    headers: { 'user-agent': 'tern-web-fetch', accept: 'text/html,text/plain,application/json;q=0.9,*/*;q=0.5' },
    signal: limits.signal,
    firstByteTimeoutMs: limits.timeoutMs,
    idleTimeoutMs: limits.timeoutMs,
  };
  try {
    const answer = await send(route, call);
    const pieces: Buffer[] = [];
    let size = 0;
    let truncated = false;
    for await (const piece of bodyPieces(answer, call, route)) {
      pieces.push(piece.subarray(0, limits.limitBytes - size));
      size += piece.length;
      if (size > limits.limitBytes) {
        truncated = true;
        break;
      }
    }
    const location = answer.headers.location;
    return {
      status: answer.status,
      contentType: String(answer.headers['content-type'] ?? ''),
      ...(typeof location === 'string' ? { location } : {}),
      body: Buffer.concat(pieces),
      truncated,
    };
  } catch (error) {
    throw failure(error, url);
  }
}
