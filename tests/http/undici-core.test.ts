// A direct request loads undici's Agent and request alone: its index (fetch, WebSocket, cache, mocks) and Node's own
// copy of undici, which that index makes Node load, wait for the first `fetchOn` call (an upload, the MCP SDK). The
// gateway's Telegram channel asks `getMe` before `/ready` through `send`, so this is start time and idle memory.
import { spawn } from 'node:child_process';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

const client = new URL('../../adapters/http/client.ts', import.meta.url).href;

/**
 * In a fresh process: what is loaded before a request, after `sendForText`, and after a `fetchOn` call. The probe's
 * own server takes `node:http` through `require`: on Node 22 and later an ES module import of it loads Node's undici
 * (tests/gateway/node-undici.test.ts).
 */
const PROBE = `
import { createRequire } from 'node:module';
const { createServer } = createRequire(import.meta.url)('node:http');
const client = await import(${JSON.stringify(client)});
const server = createServer((_request, response) => response.end('ok')).listen(0, '127.0.0.1');
await new Promise((resolve) => server.once('listening', resolve));
const url = 'http://127.0.0.1:' + server.address().port + '/';
const cache = createRequire(import.meta.url).cache;
const loaded = () => ({
  index: Object.keys(cache).some((file) => file.endsWith('/node_modules/undici/index.js')),
  nodeUndici: process.moduleLoadList.includes('NativeModule internal/deps/undici/undici'),
});
const before = loaded();
const sent = (await client.sendForText({}, { url })).text;
const afterSend = loaded();
const fetched = await (await client.fetchOn({})(url)).text();
console.log(JSON.stringify({ before, sent, afterSend, fetched, afterFetch: loaded() }));
server.close();
`;

function probe(): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', PROBE], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
    });
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`probe exited ${code}`))));
  });
}

test('a direct request loads neither undici’s index nor Node’s undici; fetchOn loads both', async () => {
  assert.equal(await probe(), {
    before: { index: false, nodeUndici: false },
    sent: 'ok',
    afterSend: { index: false, nodeUndici: false },
    fetched: 'ok',
    afterFetch: { index: true, nodeUndici: true },
  });
});

test.run();
