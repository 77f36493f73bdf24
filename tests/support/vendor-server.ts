// A loopback HTTP server that records every request and answers scripted replies, byte for byte, in order.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  /** Path and query, e.g. `/v1/chat/completions`. */
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface ScriptedReply {
  status?: number;
  headers?: Record<string, string>;
  /** Written one by one, each flushed before the next, so framing splits reach the client as given. */
  chunks: Array<string | Buffer>;
  /** After the chunks: `hang-up` destroys the connection, `stall` keeps it open and silent. Default: end. */
  after?: 'end' | 'hang-up' | 'stall';
  /** The answer starts only once this settles (the request waits meanwhile). */
  wait?: Promise<unknown>;
  /** After this many chunks the answer holds (its connection open) until `until` settles, then goes on. */
  pause?: { after: number; until: Promise<unknown> };
}

export interface VendorServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  requests: RecordedRequest[];
  /** Queues replies; each request takes the next one (a function is called with the request to make its reply). */
  reply(...replies: Array<ScriptedReply | ((request: RecordedRequest) => ScriptedReply)>): void;
  /** Forgets recorded requests and unused replies. */
  reset(): void;
  close(): Promise<void>;
}

export const sseHeaders = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' };

export function json(body: unknown, status = 200, headers: Record<string, string> = {}): ScriptedReply {
  return { status, headers: { 'content-type': 'application/json', ...headers }, chunks: [JSON.stringify(body)] };
}

/** Cuts text into pieces of `size` bytes, splitting wherever that falls (inside JSON, `\r\n` or UTF-8). */
export function splitBytes(text: string, size: number): Buffer[] {
  const bytes = Buffer.from(text);
  const pieces: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += size) pieces.push(bytes.subarray(i, i + size));
  return pieces;
}

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export async function startVendorServer(): Promise<VendorServer> {
  const requests: RecordedRequest[] = [];
  const queue: Array<ScriptedReply | ((request: RecordedRequest) => ScriptedReply)> = [];
  const server: Server = createServer((req, res) => {
    const body: Buffer[] = [];
    req.on('data', (chunk: Buffer) => body.push(chunk));
    req.on('end', async () => {
      const recorded = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(body),
      };
      requests.push(recorded);
      const next = queue.shift() ?? json({ error: { message: 'no scripted reply left', type: 'test_error' } }, 500);
      const reply = typeof next === 'function' ? next(recorded) : next;
      if (reply.wait) await reply.wait;
      res.writeHead(reply.status ?? 200, reply.headers ?? {});
      res.flushHeaders();
      for (const [index, chunk] of reply.chunks.entries()) {
        if (reply.pause?.after === index) await reply.pause.until;
        res.write(chunk);
        await tick();
      }
      if (reply.after === 'hang-up') res.socket?.destroy();
      else if (reply.after !== 'stall') res.end();
    });
  });
  server.keepAliveTimeout = 1;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    reply: (...replies) => queue.push(...replies),
    reset: () => {
      requests.length = 0;
      queue.length = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function bodyOf(request: RecordedRequest | undefined): unknown {
  return JSON.parse(request?.body.toString('utf8') ?? 'null');
}
