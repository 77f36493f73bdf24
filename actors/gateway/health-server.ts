import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Channel, WebhookAnswer, WebhookRequest } from '../../adapters/channels/channel.js';
import type { FailingLog } from '../../bus/index.js';

export interface Readiness {
  /** Every enabled channel has reported: connected, or failed with a reason. */
  reported: boolean;
  /** Reported, and no channel refused to start (an unknown kind, a missing token): `/ready` answers 200. */
  ready: boolean;
  channels: Array<{ name: string; state: string; reason?: string }>;
  /** Present while the event log cannot write: the gateway runs, but takes no new message until it can. */
  log?: FailingLog;
}

/** The channel that serves a path under `/webhooks/`, if one runs now. */
export type WebhookRoutes = (path: string) => ((request: WebhookRequest) => Promise<WebhookAnswer>) | undefined;

/** The channel that takes WebSocket upgrades at a path (the Pico Protocol's `/pico/ws`), if one runs now. */
export type UpgradeRoutes = (path: string) => Channel['upgrade'];

/** The most a webhook body may hold: platforms post a few kilobytes of JSON; media come by id. */
export const MAX_WEBHOOK_BYTES = 1024 * 1024;

/** The body, or undefined once it grew past the cap (the rest is not read). */
function readCapped(req: IncomingMessage, max: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) {
        req.removeAllListeners('data');
        req.resume();
        return resolve(undefined);
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

export interface HealthServer {
  url: string;
  close(): Promise<void>;
}

/**
 * `GET /health` (the process answers), `GET /ready`: 200 once every enabled channel is connected or said why not;
 * 503 while one is still starting (`starting`), or while one cannot start as configured (`cannot_start`, with the
 * reason), which only a fixed config ends, or while the event log cannot write (`degraded`, with `log`). And the
 * webhooks of the channels that take them (`/webhooks/<type>/<name>`, any method, bodies up to 1 MB).
 */
export async function startHealthServer(
  host: string,
  port: number,
  readiness: () => Readiness,
  webhooks?: WebhookRoutes,
  upgrades?: UpgradeRoutes,
): Promise<HealthServer> {
  const server: Server = createServer((req, res) => {
    const [path = '/', query = ''] = (req.url ?? '/').split('?');
    const send = (status: number, body: unknown): void => {
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    const hook = webhooks?.(path);
    if (hook) {
      void readCapped(req, MAX_WEBHOOK_BYTES)
        .then(async (body) => {
          if (!body)
            return send(413, {
              error: { code: 'too_large', message: `a webhook body may hold at most ${MAX_WEBHOOK_BYTES} bytes` },
            });
          const answer = await hook({
            method: req.method ?? 'GET',
            headers: req.headers,
            query: new URLSearchParams(query),
            body,
          });
          res
            .writeHead(answer.status, { 'content-type': answer.contentType ?? 'application/json' })
            .end(answer.body ?? '{}');
        })
        .catch((error: unknown) =>
          send(500, { error: { code: 'webhook_failed', message: (error as Error)?.message ?? String(error) } }),
        );
      return;
    }
    if (req.method !== 'GET')
      return send(405, { error: { code: 'method_not_allowed', message: 'only GET is served' } });
    if (path === '/health') return send(200, { status: 'ok' });
    if (path === '/ready') {
      const state = readiness();
      if (state.log) {
        const { code, reason, since, waiting } = state.log;
        const log = { state: 'failing', code, reason, since: new Date(since).toISOString(), waiting };
        return send(503, { status: 'degraded', channels: state.channels, log });
      }
      if (state.ready) return send(200, { status: 'ready', channels: state.channels });
      const refused = state.channels.filter((c) => c.state === 'refused');
      if (refused.length === 0) return send(503, { status: 'starting', channels: state.channels });
      const reason = refused.map((c) => `channel ${c.name} cannot start: ${c.reason ?? 'unknown'}`).join('; ');
      return send(503, { status: 'cannot_start', reason, channels: state.channels });
    }
    return send(404, { error: { code: 'not_found', message: 'routes: GET /health, GET /ready' } });
  });
  server.on('upgrade', (req, socket, head) => {
    const route = upgrades?.((req.url ?? '/').split('?')[0] ?? '/');
    if (route) return route(req, socket, head);
    socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
