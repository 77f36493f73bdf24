import { statSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { McpManager } from '../../actors/mcp/manager.js';
import { mcpLogin } from '../../adapters/mcp/oauth-login.js';
import type { McpServerConfig } from '../../adapters/mcp/options.js';
import { mcpAuthPath, readMcpAuth } from '../../store/mcp-tokens.js';
import { followInBrowser, startAuthServer } from '../support/mcp-auth-server.js';
import { mcpOptions } from '../support/mcp-servers.js';
import { tempHome } from '../support/temp-home.js';

test('an oauth server needs a login, then connects with the stored tokens and refreshes them', async () => {
  const authServer = await startAuthServer();
  const home = tempHome();
  const server: McpServerConfig = { enabled: true, url: authServer.mcpUrl, oauth: {} };
  const managerFor = () =>
    new McpManager({
      options: mcpOptions({ remote: server }),
      workspace: home.workspace,
      home: home.home,
      backoff: { initialMs: 60_000, maxMs: 60_000 },
    });
  let manager = managerFor();
  try {
    manager.start();
    const before = await manager.settled('remote');
    assert.equal(
      before.state === 'failed' && before.reason,
      'MCP server remote needs a login: run `tern mcp login remote`',
    );
    assert.is(authServer.provider.clients.size, 0);
    await manager.stop();

    const opened: string[] = [];
    await mcpLogin({
      name: 'remote',
      server,
      home: home.home,
      openBrowser: async (url) => {
        opened.push(url.pathname);
        await followInBrowser(url);
      },
    });
    assert.equal(opened, ['/authorize']);
    const stored = readMcpAuth(home.home, 'remote');
    assert.is(statSync(mcpAuthPath(home.home, 'remote')).mode & 0o777, 0o600);
    assert.is(authServer.provider.clients.size, 1);
    assert.is(stored.client?.client_id, [...authServer.provider.clients.keys()][0]);
    assert.match(String(stored.tokens?.access_token), /^at-/);

    manager = managerFor();
    manager.start();
    assert.equal(await manager.settled('remote'), { state: 'connected', tools: 1 });
    assert.equal(await manager.call('mcp_remote_whoami', {}), {
      ok: true,
      content: `client ${stored.client?.client_id}`,
    });

    authServer.expireAccessTokens();
    assert.equal(await manager.call('mcp_remote_whoami', {}), {
      ok: true,
      content: `client ${stored.client?.client_id}`,
    });
    assert.is(authServer.provider.refreshes, 1);
    assert.is.not(readMcpAuth(home.home, 'remote').tokens?.access_token, stored.tokens?.access_token);
  } finally {
    await manager.stop();
    await authServer.close();
    home.remove();
  }
});

test('login refuses a server without an oauth block, naming what is allowed', async () => {
  await mcpLogin({
    name: 'plain',
    server: { enabled: true, command: 'x' },
    home: '/nonexistent',
    openBrowser: async () => undefined,
  }).then(
    () => assert.unreachable('should refuse'),
    (error: Error & { code?: string }) => {
      assert.is(error.code, 'mcp_login_not_oauth');
      assert.is(error.message, 'server plain has no oauth block (allowed: a remote sse or http server with oauth: {})');
    },
  );
});

test.run();
