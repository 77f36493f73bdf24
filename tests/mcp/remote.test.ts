import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { McpManager } from '../../actors/mcp/manager.js';
import type { McpServerConfig } from '../../adapters/mcp/options.js';
import { mcpOptions, startEverythingRemote } from '../support/mcp-servers.js';
import { tempHome } from '../support/temp-home.js';

async function sumOver(kind: 'streamableHttp' | 'sse', server: (url: string) => McpServerConfig) {
  const remote = await startEverythingRemote(kind);
  const home = tempHome();
  const manager = new McpManager({
    options: mcpOptions({ remote: server(remote.url) }),
    workspace: home.workspace,
    home: home.home,
  });
  try {
    manager.start();
    const state = await manager.settled('remote');
    const transport = manager.statuses()[0]?.transport;
    const result = await manager.call('mcp_remote_get-sum', { a: 40, b: 2 });
    return { state, transport, result };
  } finally {
    await manager.stop();
    await remote.stop();
    home.remove();
  }
}

test('a server with only a url connects over streamable HTTP', async () => {
  const { state, transport, result } = await sumOver('streamableHttp', (url) => ({
    enabled: true,
    url,
    headers: { 'X-Trace': 'tern' },
  }));
  assert.equal(state, { state: 'connected', tools: 13 });
  assert.is(transport, 'http');
  assert.equal(result, { ok: true, content: 'The sum of 40 and 2 is 42.' });
});

test('type sse connects over server-sent events', async () => {
  const { state, transport, result } = await sumOver('sse', (url) => ({ enabled: true, type: 'sse', url }));
  assert.equal(state, { state: 'connected', tools: 13 });
  assert.is(transport, 'sse');
  assert.equal(result, { ok: true, content: 'The sum of 40 and 2 is 42.' });
});

test('an unreachable http server fails with its reason and never blocks start', async () => {
  const home = tempHome();
  const manager = new McpManager({
    options: mcpOptions({ gone: { enabled: true, url: 'http://127.0.0.1:9/mcp' } }),
    workspace: home.workspace,
    home: home.home,
    backoff: { initialMs: 10_000, maxMs: 10_000 },
  });
  try {
    manager.start();
    assert.equal(manager.statuses()[0]?.connection, { state: 'connecting', attempt: 1 });
    const state = await manager.settled('gone');
    assert.is(state.state, 'failed');
    assert.equal(manager.tools(), []);
    assert.equal(await manager.call('mcp_gone_anything', {}), {
      ok: false,
      content: 'unknown MCP tool "mcp_gone_anything" (its server may be disconnected or the tool removed)',
    });
  } finally {
    await manager.stop();
    home.remove();
  }
});

test('configured headers are sent with every request to a remote server', async () => {
  const seen: Array<string | undefined> = [];
  const http = createServer((req, res) => {
    seen.push(req.headers['x-api-key'] as string | undefined);
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  const home = tempHome();
  const manager = new McpManager({
    options: mcpOptions({ keyed: { enabled: true, url, headers: { 'X-Api-Key': 'k-123' } } }),
    workspace: home.workspace,
    home: home.home,
    backoff: { initialMs: 60_000, maxMs: 60_000 },
  });
  try {
    manager.start();
    assert.is((await manager.settled('keyed')).state, 'failed');
    assert.ok(seen.length > 0);
    assert.ok(
      seen.every((value) => value === 'k-123'),
      JSON.stringify(seen),
    );
  } finally {
    await manager.stop();
    http.closeAllConnections();
    await new Promise<void>((resolve) => http.close(() => resolve()));
    home.remove();
  }
});

test.run();
