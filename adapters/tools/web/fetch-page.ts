import { loadGot } from '../../got.js';
import type { LookupFunction } from 'node:net';
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
  timeoutMs: number;
  lookup: LookupFunction;
  signal: AbortSignal;
}

/** The original refusal when the guarded DNS lookup refused; got wraps it in its own error. */
function unwrap(error: unknown): unknown {
  const cause = (error as { cause?: unknown }).cause;
  return cause instanceof ToolError ? cause : error;
}

/** One request, no redirects followed, the body cut at `limitBytes`. */
export async function fetchPage(url: URL, limits: FetchLimits): Promise<Page> {
  const { default: got } = await loadGot();
  return new Promise((resolve, reject) => {
    const stream = got.stream(url, {
      followRedirect: false,
      throwHttpErrors: false,
      retry: { limit: 0 },
      dnsLookup: limits.lookup,
      timeout: { request: limits.timeoutMs },
      signal: limits.signal,
      headers: { 'user-agent': 'tern-web-fetch', accept: 'text/html,text/plain,application/json;q=0.9,*/*;q=0.5' },
    });
    const chunks: Buffer[] = [];
    let size = 0;
    let status = 0;
    let contentType = '';
    let location: string | undefined;
    const finish = (truncated: boolean) => resolve({ status, contentType, location, body: Buffer.concat(chunks), truncated });
    stream.on('response', (response: { statusCode: number; headers: Record<string, string | string[] | undefined> }) => {
      status = response.statusCode;
      contentType = String(response.headers['content-type'] ?? '');
      const header = response.headers.location;
      location = typeof header === 'string' ? header : undefined;
    });
    stream.on('data', (chunk: Buffer) => {
      const room = limits.limitBytes - size;
      chunks.push(chunk.subarray(0, Math.max(0, room)));
      size += chunk.length;
      if (size > limits.limitBytes) {
        stream.destroy();
        finish(true);
      }
    });
    stream.on('end', () => finish(false));
    stream.on('error', (error) => reject(unwrap(error)));
  });
}
