import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { McpManager } from '../../adapters/mcp/manager.js';
import type { McpServerConfig } from '../../adapters/mcp/options.js';
import { mcpOptions, startEverythingRemote } from '../support/mcp-servers.js';
import { tempHome } from '../support/temp-home.js';

async function sumOver(kind: 'streamableHttp' | 'sse', server: (url: string) => McpServerConfig) {
  const remote = await startEverythingRemote(kind);
  const home = tempHome();
  const manager = new McpManager({ options: mcpOptions({ remote: server(remote.url) }), workspace: home.workspace, home: home.home });
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
  const { state, transport, result } = await sumOver('streamableHttp', (url) => ({ enabled: true, url, headers: { 'X-Trace': 'tern' } }));
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

test.run();
