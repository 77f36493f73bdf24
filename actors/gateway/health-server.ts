import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FailingLog } from '../../bus/index.js';

export interface Readiness {
  /** Every enabled channel connected or failed with a reason. */
  ready: boolean;
  channels: Array<{ name: string; state: string; reason?: string }>;
  /** Present while the event log cannot write: the gateway runs, but takes no new message until it can. */
  log?: FailingLog;
}

export interface HealthServer {
  url: string;
  close(): Promise<void>;
}

/**
 * `GET /health` (the process answers) and `GET /ready` (every enabled channel connected or said why not; 503
 * `degraded` with `log` while the event log cannot write).
 */
export async function startHealthServer(host: string, port: number, readiness: () => Readiness): Promise<HealthServer> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const send = (status: number, body: unknown): void => {
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    if (req.method !== 'GET') return send(405, { error: { code: 'method_not_allowed', message: 'only GET is served' } });
    if (path === '/health') return send(200, { status: 'ok' });
    if (path === '/ready') {
      const state = readiness();
      if (state.log) {
        const { code, reason, since, waiting } = state.log;
        const log = { state: 'failing', code, reason, since: new Date(since).toISOString(), waiting };
        return send(503, { status: 'degraded', channels: state.channels, log });
      }
      return send(state.ready ? 200 : 503, { status: state.ready ? 'ready' : 'starting', channels: state.channels });
    }
    return send(404, { error: { code: 'not_found', message: 'routes: GET /health, GET /ready' } });
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
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
