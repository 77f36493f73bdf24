import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tern } from './cli-run.js';
import { tempHome } from './home.js';

const SECRET = 'sk-cli-secret-000000042';
const BWRAP_VERSION = execFileSync('bwrap', ['--version'], { encoding: 'utf8' }).trim();
const ISOLATED = `exec runs inside bubblewrap (${BWRAP_VERSION})`;

test('tern onboard creates home, credentials (0600) and workspace, then never overwrites', async () => {
  const h = tempHome();
  const first = await tern(['onboard'], h.env);
  assert.is(first.code, 0, first.stderr);
  assert.equal(first.stdout.split('\n').slice(1, 4), ['  config.json', '  .security.yml', '  workspace/sessions']);
  assert.match(first.stdout, /workspace\/memory\/MEMORY\.md/);
  h.writeConfig({ version: 2, heartbeat: { interval: 60 } });
  const second = await tern(['onboard', '--json'], h.env);
  assert.equal(JSON.parse(second.stdout), {
    ok: true,
    home: h.home,
    workspace: h.path('workspace'),
    created: [],
    written: [],
    tests: [],
  });
  assert.equal(JSON.parse(h.read('config.json')), { version: 2, heartbeat: { interval: 60 } });
  h.remove();
});

test('tern config validate prints every problem as path: message (allowed: …) and exits 1', async () => {
  const h = tempHome();
  h.writeConfig({ version: 2, gateway: { log_level: 'loud' }, heartbeat: { interval: 1 } }, 'bad.json');
  const text = await tern(['config', 'validate', h.path('bad.json')], h.env);
  assert.is(text.code, 1);
  assert.is(
    text.stdout,
    'gateway.log_level: "loud" is not allowed (allowed: debug, info, warn, error, fatal)\n' +
      'heartbeat.interval: 1 is too small (allowed: whole numbers 5 or more)\n',
  );
  const json = await tern(['config', 'validate', h.path('bad.json'), '--json'], h.env);
  assert.is(json.code, 1);
  assert.equal(JSON.parse(json.stdout), {
    ok: false,
    path: h.path('bad.json'),
    problems: [
      'gateway.log_level: "loud" is not allowed (allowed: debug, info, warn, error, fatal)',
      'heartbeat.interval: 1 is too small (allowed: whole numbers 5 or more)',
    ],
  });
  h.remove();
});

test(
  'tern config validate lists type, reference, provider, ' + 'address and channel problems in one run, one path format',
  async () => {
    const h = tempHome();
    h.writeConfig({
      version: 2,
      gateway: { log_level: 'loud' },
      agents: { defaults: { model: 'fsat' } },
      model_list: [
        { model_name: 'fast', model: 'gpt-5', api_keys: 'sk-not-a-list-000001', api_base: 'not a url' },
        { model_name: 'other', provider: 'openia', model: 'gpt-5' },
      ],
      channel_list: { telegram: { enabled: true }, discord: { enabled: false } },
      tools: { web: { searxng: { base_url: 'localhost:8888' } } },
      surprise: true,
    });
    const result = await tern(['config', 'validate'], h.env);
    assert.is(result.code, 1);
    assert.is(
      result.stdout,
      [
        'gateway.log_level: "loud" is not allowed (allowed: debug, info, warn, error, fatal)',
        'model_list[0].api_keys: a string is not a list (allowed: a list of strings)',
        'agents.defaults.model: "fsat" is not a model_name in model_list (allowed: fast, other)',
        'model_list[0].api_base: "not a url" is not an http(s) URL (allowed: ' +
          'an address such as https://api.openai.com/v1)',
        'tools.web.searxng.base_url: "localhost:8888" is not an http(s) URL (allowed: ' +
          'an address such as http://127.0.0.1:8888)',
        'model_list[1].provider: unknown provider "openia" (allowed: openai, anthropic, gemini, google, ' +
          'openrouter, groq, deepseek, mistral, xai, cerebras, together, fireworks, nvidia, zhipu, moonshot, ' +
          'qwen, siliconflow, volcengine, minimax, anthropic-messages, venice, longcat, modelscope, azure, ' +
          'litellm, ollama, vllm, lmstudio, custom, antigravity, google-antigravity, github-copilot)',
        'channel_list.telegram.settings.token: is required for an enabled telegram channel (allowed: ' +
          'the bot token from @BotFather, in config.json or in .security.yml under channel_list.telegram.token)',
        '',
      ].join('\n'),
    );
    assert.is(result.stderr, `${h.path('config.json')}: 7 problems\n`);
    h.remove();
  },
);

test(
  'tern config validate: an enabled channel without its ' + 'token fails validation, even when the rest is fine',
  async () => {
    const h = tempHome();
    h.writeConfig({
      version: 2,
      channel_list: { slack: { enabled: true, settings: { token: 'xoxb-only-the-bot-token' } } },
    });
    const result = await tern(['config', 'validate', '--json'], h.env);
    assert.is(result.code, 1);
    assert.equal(JSON.parse(result.stdout).problems, [
      'channel_list.slack.settings.app_token: is required for an enabled slack channel (allowed: the app-level ' +
        'token for Socket Mode, xapp-…, in config.json or in .security.yml under channel_list.slack.app_token)',
    ]);
    h.writeCredentials({ channel_list: { slack: { app_token: 'xapp-from-the-credentials' } } });
    assert.is((await tern(['config', 'validate'], h.env)).code, 0);
    h.remove();
  },
);

test('tern config validate: unknown keys are warnings and exit 0', async () => {
  const h = tempHome();
  h.writeConfig({ version: 2, heartbeat: { interval: 30, jitter: 5 }, devices: {}, _comment: 'kept out of warnings' });
  const result = await tern(['config', 'validate'], h.env);
  assert.equal(
    [result.code, result.stdout, result.stderr],
    [
      0,
      `${h.path('config.json')}: valid\n`,
      'warning: unknown key heartbeat.jitter (ignored)\n' +
        "warning: devices (USB device monitoring) is for the peer runtime's hardware boards: " +
        'Tern has no hardware tools (ignored)\n',
    ],
  );
  h.remove();
});

test('tern config validate of a good file exits 0; config path names AGENT_CONFIG', async () => {
  const h = tempHome();
  h.writeConfig({ version: 2 }, 'tern.json');
  const env = { ...h.env, AGENT_CONFIG: h.path('tern.json') };
  const valid = await tern(['config', 'validate', '--json'], env);
  assert.equal(JSON.parse(valid.stdout), { ok: true, path: h.path('tern.json'), warnings: [], notes: [] });
  const path = await tern(['config', 'path'], env);
  assert.is(path.stdout, `${h.path('tern.json')}\n`);
  h.remove();
});

test('tern config show prints the effective config with secrets masked', async () => {
  const h = tempHome({ AGENT_HEARTBEAT_INTERVAL: '15' });
  h.writeConfig({ version: 2, model_list: [{ model_name: 'gpt', model: 'gpt-5' }] });
  h.writeCredentials({ model_list: { gpt: { api_keys: [SECRET] } } });
  const json = await tern(['config', 'show', '--json'], h.env);
  const shown = JSON.parse(json.stdout) as {
    config: { heartbeat: { interval: number }; model_list: { api_keys: string[] }[] };
  };
  assert.is(shown.config.heartbeat.interval, 15);
  assert.equal(shown.config.model_list[0]!.api_keys, ['sk-c…42']);
  const text = await tern(['config', 'show'], h.env);
  assert.is(text.code, 0);
  assert.match(text.stdout, /- sk-c…42/);
  assert.not.ok(text.stdout.includes(SECRET) || json.stdout.includes(SECRET));
  h.remove();
});

test('tern config validate of a missing file fails (exit 1)', async () => {
  const h = tempHome();
  const missing = await tern(['config', 'validate', h.path('nope.json'), '--json'], h.env);
  assert.is(missing.code, 1);
  assert.equal(JSON.parse(missing.stdout), {
    ok: false,
    error: {
      code: 'config_missing',
      message:
        `cannot validate ${h.path('nope.json')} (the file does not exist). ` +
        `Check the path, or run \`tern config path\` to see the config in use.`,
    },
  });
  h.remove();
});

/**
 * A gateway's two probes on loopback: `/health` answers 200; `/ready` answers `ready` as a gateway does (200 when it
 * is ready, else 503), or never (`hang`), as a gateway too busy to answer in time.
 */
function healthServer(ready: Record<string, unknown> | 'hang' = { status: 'ready', channels: [] }): Promise<Server> {
  const server = createServer((req, res) => {
    const send = (status: number, body: unknown) =>
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (req.url === '/health') return send(200, { status: 'ok' });
    if (req.url !== '/ready') return send(404, { error: { code: 'not_found', message: 'no such route' } });
    if (ready !== 'hang') send(ready.status === 'ready' ? 200 : 503, ready);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

const closeServer = (server: Server) =>
  new Promise((resolve) => {
    server.closeAllConnections();
    server.close(resolve);
  });

test('tern status lists models with masked keys, channels, MCP servers, and whether the gateway answers', async () => {
  const h = tempHome();
  const server = await healthServer();
  const port = (server.address() as AddressInfo).port;
  const config = {
    version: 2,
    gateway: { host: '127.0.0.1', port },
    model_list: [{ model_name: 'gpt', provider: 'openai', model: 'gpt-5' }],
    channel_list: { telegram: { enabled: true } },
    tools: { mcp: { enabled: true, servers: { fs: { enabled: true, command: 'mcp-fs' } } } },
  };
  h.writeConfig(config);
  h.writeCredentials({ model_list: { gpt: { api_keys: [SECRET, 'sk-cli-secret-000000043'] } } });
  try {
    const up = await tern(['status', '--json'], h.env);
    assert.equal(JSON.parse(up.stdout), {
      ok: true,
      config: { path: h.path('config.json'), exists: true },
      workspace: h.path('workspace'),
      models: [
        {
          model_name: 'gpt',
          enabled: true,
          key_count: 2,
          keys: ['sk-c…42', 'sk-c…43'],
          provider: 'openai',
          family: 'chat-completions',
          model: 'gpt-5',
          api_base: 'https://api.openai.com/v1',
          proxy: null,
          proxy_from: null,
        },
      ],
      channels: [{ name: 'telegram', type: 'telegram', enabled: true, proxy: null, proxy_from: null }],
      mcp_servers: [{ name: 'fs', type: 'stdio', enabled: true }],
      gateway: { url: `http://127.0.0.1:${port}/health`, up: true, ready: 'ready', log: { state: 'ok' } },
      exec_isolation: { state: 'isolated', detail: ISOLATED },
    });
  } finally {
    await closeServer(server);
  }
  const down = await tern(['status'], h.env);
  assert.is(down.code, 0);
  assert.equal(down.stdout.split('\n'), [
    `config      ${h.path('config.json')}`,
    `workspace   ${h.path('workspace')}`,
    'models      1',
    '  gpt  provider openai (chat-completions)  model gpt-5  ' +
      'base https://api.openai.com/v1  2 keys (sk-c…42, sk-c…43)  proxy: none  enabled',
    'channels    1',
    '  telegram  telegram  proxy: none  enabled',
    'mcp         1',
    '  fs  stdio  enabled',
    `gateway     down (http://127.0.0.1:${port}/health)`,
    `isolation   ${ISOLATED}`,
    '',
  ]);
  h.remove();
});

test('tern status says how far a running gateway is, and when its /ready does not answer', async () => {
  const h = tempHome();
  const gatewayLine = async (ready: Record<string, unknown> | 'hang') => {
    const server = await healthServer(ready);
    const port = (server.address() as AddressInfo).port;
    h.writeConfig({ version: 2, gateway: { host: '127.0.0.1', port }, channel_list: { telegram: { enabled: true } } });
    try {
      const [text, json] = await Promise.all([tern(['status'], h.env), tern(['status', '--json'], h.env)]);
      const url = `http://127.0.0.1:${port}/health`;
      const lines = text.stdout.split('\n');
      const shown = JSON.parse(json.stdout) as { gateway: unknown; channels: Array<{ state?: string }> };
      return {
        line: lines.find((l) => l.startsWith('gateway '))?.replace(url, 'URL'),
        channel: lines.find((l) => l.startsWith('  telegram ')),
        gateway: { ...(shown.gateway as object), url: (shown.gateway as { url: string }).url.replace(url, 'URL') },
        state: shown.channels[0]!.state,
      };
    } finally {
      await closeServer(server);
    }
  };
  const telegram = { name: 'telegram', state: 'starting' };
  assert.equal(await gatewayLine({ status: 'starting', channels: [telegram] }), {
    line: 'gateway     up, starting its channels (URL)',
    channel: '  telegram  telegram  proxy: none  enabled  starting',
    gateway: { url: 'URL', up: true, ready: 'starting', log: { state: 'ok' } },
    state: 'starting',
  });
  // Too busy to answer /ready in 2 s: up, and the channel states are not made up.
  assert.equal(await gatewayLine('hang'), {
    line: 'gateway     up, but /ready did not answer within 2 s: channel states not shown (URL)',
    channel: '  telegram  telegram  proxy: none  enabled',
    gateway: { url: 'URL', up: true, ready: 'no_answer' },
    state: undefined,
  });
  h.remove();
});

test('tern status says plainly when exec runs without bubblewrap, and why', async () => {
  const h = tempHome();
  const noBwrap = { ...h.env, PATH: '/nonexistent' };
  const guardOnly = await tern(['status', '--json'], noBwrap);
  assert.equal(JSON.parse(guardOnly.stdout).exec_isolation, {
    state: 'guard_only',
    detail:
      'exec runs without isolation: bwrap is not installed; ' +
      'only the command guard stands between a command and your files. ' +
      'Install bubblewrap (apt-get install bubblewrap) or set tools.exec.isolation to "off" to accept this',
  });
  const cases: [config: unknown, line: string][] = [
    [
      { tools: { exec: { isolation: 'bwrap' } } },
      'isolation   exec and cron command jobs are refused: tools.exec.isolation is "bwrap" ' +
        'but bwrap is not installed. Install bubblewrap or set tools.exec.isolation to "auto"',
    ],
    [
      { isolation: { enabled: false } },
      'isolation   exec runs without isolation (tools.exec.isolation is "off"); ' +
        'only the command guard stands between a command and your files',
    ],
    [
      { tools: { exec: { enabled: false, isolation: 'bwrap' } } },
      'isolation   exec is disabled (tools.exec.enabled is false)',
    ],
  ];
  for (const [config, line] of cases) {
    h.writeConfig({ version: 2, ...(config as object) });
    const shown = await tern(['status'], noBwrap);
    assert.is(shown.stdout.split('\n').at(-2), line, JSON.stringify(config));
  }
  h.remove();
});

test.run();
