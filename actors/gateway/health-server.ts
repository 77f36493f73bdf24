import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Readiness {
  /** Every enabled channel has reported: connected, or failed with a reason. */
  reported: boolean;
  /** Reported, and no channel refused to start (an unknown kind, a missing token): `/ready` answers 200. */
  ready: boolean;
  channels: Array<{ name: string; state: string; reason?: string }>;
}

export interface HealthServer {
  url: string;
  close(): Promise<void>;
}

/**
 * `GET /health` (the process answers) and `GET /ready`: 200 once every enabled channel is connected or said why not;
 * 503 while one is still starting (`starting`), or while one cannot start as configured (`cannot_start`, with the
 * reason), which only a fixed config ends.
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
      if (state.ready) return send(200, { status: 'ready', channels: state.channels });
      const refused = state.channels.filter((c) => c.state === 'refused');
      if (refused.length === 0) return send(503, { status: 'starting', channels: state.channels });
      const reason = refused.map((c) => `channel ${c.name} cannot start: ${c.reason ?? 'unknown'}`).join('; ');
      return send(503, { status: 'cannot_start', reason, channels: state.channels });
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
