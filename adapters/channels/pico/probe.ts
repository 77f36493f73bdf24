// What `tern doctor` can learn of a `pico` entry without a platform to ask: how the gateway's `/pico/ws` answers a
// WebSocket upgrade, and whether the gateway's port could be taken when nothing answers there.
import { createServer } from 'node:net';
import WebSocket from 'ws';

const TIMEOUT_MS = 10_000;

/** How an upgrade was answered: a socket (101), an HTTP status and its text, or no answer at all. */
export type UpgradeAnswer =
  | { kind: 'socket' }
  | { kind: 'status'; status: number; text: string }
  | { kind: 'unreachable'; code: string };

/**
 * One upgrade at `url`, showing `token` as `Authorization: Bearer` when given. A socket that opens is dropped at once:
 * it named no session, so the gateway sent it nothing and no turn ran.
 */
export function upgradeAnswer(url: string, token?: string): Promise<UpgradeAnswer> {
  return new Promise((resolve) => {
    const socket = new WebSocket(url, {
      headers: token ? { authorization: `Bearer ${token}` } : {},
      handshakeTimeout: TIMEOUT_MS,
    });
    socket.once('open', () => {
      socket.terminate();
      resolve({ kind: 'socket' });
    });
    socket.once('unexpected-response', (request, response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => {
        request.destroy();
        resolve({ kind: 'status', status: response.statusCode ?? 0, text: text.trim() });
      });
    });
    socket.once('error', (error: NodeJS.ErrnoException) =>
      resolve({ kind: 'unreachable', code: error.code ?? error.message }),
    );
  });
}

/** Whether a server could listen on `host:port` now (the gateway's HTTP server, when none runs); released at once. */
export function portTakeable(host: string, port: number): Promise<{ ok: true } | { ok: false; code: string }> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', (error: NodeJS.ErrnoException) => resolve({ ok: false, code: error.code ?? error.message }));
    server.listen({ host: host || undefined, port, exclusive: true }, () => server.close(() => resolve({ ok: true })));
  });
}
