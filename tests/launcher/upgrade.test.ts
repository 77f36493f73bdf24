import { test } from 'uvu';
import * as assert from 'uvu/assert';
import WebSocket, { WebSocketServer } from 'ws';
import type { RunningLauncher } from '../../adapters/launcher/server.js';
import { setUp, start, tempHome } from './launcher-harness.js';

/** What the lead's WebSocket code does: accept an upgrade only when the launcher says it is authenticated. */
function acceptAuthenticatedUpgrades(launcher: RunningLauncher): WebSocketServer {
  const sockets = new WebSocketServer({ noServer: true });
  sockets.on('connection', (socket) => socket.send('welcome'));
  launcher.server.on('upgrade', async (req, socket, head) => {
    if (!(await launcher.authenticateUpgrade(req))) {
      socket.end('HTTP/1.1 401 Unauthorized\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    sockets.handleUpgrade(req, socket, head, (ws) => sockets.emit('connection', ws, req));
  });
  return sockets;
}

type Outcome = { kind: 'accepted'; first: string } | { kind: 'refused'; status: number };

function connect(url: string, headers: Record<string, string>): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { headers });
    socket.on('message', (data) => {
      resolve({ kind: 'accepted', first: String(data) });
      socket.close();
    });
    socket.on('unexpected-response', (_req, res) => {
      resolve({ kind: 'refused', status: res.statusCode ?? 0 });
      res.resume();
    });
    socket.on('error', reject);
  });
}

test('a WebSocket upgrade needs the session cookie and an Origin naming this server', async () => {
  const { home, remove } = tempHome();
  const launcher = await start(home);
  const sockets = acceptAuthenticatedUpgrades(launcher);
  try {
    const cookie = await setUp(launcher);
    const ws = `${launcher.url.replace('http', 'ws')}/pico/ws`;
    const cases: Array<[string, Record<string, string>, Outcome]> = [
      ['cookie and same Origin', { cookie, origin: launcher.url }, { kind: 'accepted', first: 'welcome' }],
      ['no cookie', { origin: launcher.url }, { kind: 'refused', status: 401 }],
      [
        'a forged cookie',
        { cookie: 'tern_session=s%3Aforged.sig', origin: launcher.url },
        { kind: 'refused', status: 401 },
      ],
      ['a foreign Origin', { cookie, origin: 'http://evil.example' }, { kind: 'refused', status: 401 }],
      ['same host, other port', { cookie, origin: 'http://127.0.0.1:1' }, { kind: 'refused', status: 401 }],
      ['no Origin', { cookie }, { kind: 'refused', status: 401 }],
      [
        'a Bearer header instead of the cookie',
        { authorization: 'Bearer anything', origin: launcher.url },
        { kind: 'refused', status: 401 },
      ],
    ];
    for (const [name, headers, expected] of cases) assert.equal(await connect(ws, headers), expected, name);
  } finally {
    sockets.close();
    await launcher.close();
    remove();
  }
});

test.run();
