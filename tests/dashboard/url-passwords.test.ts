// A password inside a URL (a model's or a channel's proxy, an API root, an MCP server) is a secret although its field
// is plain text: no API body shows it, and a masked URL sent back keeps the saved password.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { call } from '../launcher/launcher-harness.js';
import { startDashboard } from '../support/dashboard-harness.js';

const PASSWORDS = ['proxy-pass-7731', 'root-pass-5512', 'chan-pass-9040', 'mcp-pass-2208'];
const PROXY = `http://alice:${PASSWORDS[0]}@127.0.0.1:3128`;
const API_ROOT = `http://bob:${PASSWORDS[1]}@127.0.0.1:9/v1`;
const CHANNEL_PROXY = `socks5://carol:${PASSWORDS[2]}@127.0.0.1:1080`;
const MCP_URL = `https://dave:${PASSWORDS[3]}@127.0.0.1:9/mcp`;

type Shown = {
  config: {
    model_list: Array<{ model_name: string; proxy?: string; api_base: string }>;
    channel_list: Record<string, { proxy?: string }>;
    tools: { mcp: { servers: Record<string, { url: string }> } };
  };
};

test('URL passwords are masked in every API body and a kept mask saves the saved password', async () => {
  const dashboard = await startDashboard({
    models: [{ model_name: 'behind', model: 'gpt-behind', proxy: PROXY, api_base: API_ROOT, enabled: false }],
    channels: {
      web: { enabled: true, type: 'pico' },
      tg: { enabled: false, type: 'telegram', proxy: CHANNEL_PROXY, settings: { token: '123456:ABCDEFGHIJKLMNOP' } },
    },
    tools: { mcp: { enabled: true, servers: { remote: { enabled: false, url: MCP_URL } } } },
  });
  try {
    const get = (path: string) => call(dashboard.launcher, path, { cookie: dashboard.cookie });
    const shown = (await get('/api/config')).body as Shown;
    const behind = shown.config.model_list[1]!;
    assert.equal(
      [behind.proxy, behind.api_base, shown.config.channel_list.tg?.proxy, shown.config.tools.mcp.servers.remote?.url],
      [
        'http://alice:****@127.0.0.1:3128',
        'http://bob:****@127.0.0.1:9/v1',
        'socks5://carol:****@127.0.0.1:1080',
        'https://dave:****@127.0.0.1:9/mcp',
      ],
    );
    for (const path of ['/api/config', '/api/status', '/api/models', '/api/mcp', '/api/events?limit=500']) {
      const reply = await get(path);
      assert.is(reply.status, 200, `${path}: ${reply.text}`);
      for (const password of PASSWORDS) assert.not.ok(reply.text.includes(password), `${path} shows ${password}`);
    }

    const saved = await call(dashboard.launcher, '/api/config', {
      method: 'PUT',
      cookie: dashboard.cookie,
      json: { config: shown.config },
    });
    assert.is(saved.status, 200, saved.text);
    for (const password of PASSWORDS) assert.not.ok(saved.text.includes(password), `the answer shows ${password}`);
    const written = JSON.parse(readFileSync(join(dashboard.home.home, 'config.json'), 'utf8'));
    assert.equal(
      [written.model_list[1].proxy, written.model_list[1].api_base, written.channel_list.tg.proxy],
      [PROXY, API_ROOT, CHANNEL_PROXY],
    );
    assert.is(written.tools.mcp.servers.remote.url, MCP_URL);

    behind.proxy = 'http://alice:****@127.0.0.1:3129';
    const moved = await call(dashboard.launcher, '/api/config', {
      method: 'PUT',
      cookie: dashboard.cookie,
      json: { config: shown.config },
    });
    assert.equal(
      [moved.status, (moved.body as { issues: string[] }).issues],
      [400, ['model_list.1.proxy: is masked and matches no saved secret (type it again)']],
    );
  } finally {
    await dashboard.close();
  }
});

test.run();
