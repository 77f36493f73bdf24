import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { InProcessBus } from '../../bus/bus.js';
import { loadConfig, Redactor, redactorOf } from '../../store/config/index.js';
import { tempHome } from './home.js';

const MODEL_KEY = 'sk-model-key-000000000001';

test(
  'every kind of configured secret is masked in text: ' +
    'model keys, channel tokens, search keys, registry tokens, MCP headers and env',
  () => {
    const h = tempHome();
    h.writeConfig({
      version: 2,
      model_list: [{ model_name: 'm', provider: 'openai', model: 'gpt', api_keys: [MODEL_KEY] }],
      channel_list: {
        tg: { enabled: true, type: 'telegram', settings: { token: '7000001:channel-token-AAAAAAAA' } },
        sl: { enabled: false, type: 'slack', settings: { app_token: 'xapp-slack-app-token-1' } },
      },
      tools: {
        web: { brave: { enabled: true, api_key: 'BSA-search-key-00000001' } },
        skills: { registries: { github: { auth_token: 'registry-token-00000001' } } },
        mcp: {
          enabled: true,
          servers: {
            remote: {
              enabled: true,
              url: 'https://mcp.example.com/mcp',
              headers: { Authorization: 'Bearer mcp-header-token-0001' },
            },
            local: { enabled: true, command: 'srv', env: { ACCESS_TOKEN: 'mcp-env-token-00000001' } },
          },
        },
      },
    });
    h.writeCredentials({ web: { tavily: { api_keys: ['tvly-credentials-key-01'] } } });
    const redactor = redactorOf(loadConfig({ env: h.env }).config);
    const text = [
      MODEL_KEY,
      '7000001:channel-token-AAAAAAAA',
      'xapp-slack-app-token-1',
      'BSA-search-key-00000001',
      'registry-token-00000001',
      'Bearer mcp-header-token-0001',
      'mcp-header-token-0001',
      'mcp-env-token-00000001',
      'tvly-credentials-key-01',
    ]
      .map((s) => `<${s}>`)
      .join(' ');
    assert.is(
      redactor.text(text),
      '<sk-m…01> <7000…AA> <xapp…-1> <BSA-…01> <regi…01> <Bear…01> <mcp-…01> <mcp-…01> <tvly…01>',
    );
    h.remove();
  },
);

test('proxy credentials (config, environment) and env_file values are masked; a URL password reads [REDACTED]', () => {
  const h = tempHome();
  h.writeConfig({
    version: 2,
    model_list: [
      {
        model_name: 'm',
        provider: 'openai',
        model: 'gpt',
        api_keys: [MODEL_KEY],
        proxy: 'http://alice:model-proxy-pw-1@10.0.0.1:3128',
      },
    ],
    tools: { mcp: { enabled: true, servers: { local: { enabled: true, command: 'srv', env_file: 'srv.env' } } } },
  });
  writeFileSync(join(h.home, 'srv.env'), 'export SRV_TOKEN="env-file-token-0001"\nSHORT=abc\n');
  const env = {
    ...h.env,
    HTTPS_PROXY: 'http://carol:env%40proxy-pw-2@10.0.0.2:8080',
    all_proxy: 'socks5://lone-user-token-03@10.0.0.3:1080',
  };
  const redactor = redactorOf(loadConfig({ env }).config);
  const cases: [string, string][] = [
    ['pw model-proxy-pw-1 and env@proxy-pw-2 and env%40proxy-pw-2', 'pw mode…-1 and env@…-2 and env%…-2'],
    ['lone-user-token-03 env-file-token-0001 abc', 'lone…03 env-…01 abc'],
    [
      'curl -x http://dave:never-configured@proxy:3128 https://example.com/a@b',
      'curl -x http://dave:[REDACTED]@proxy:3128 https://example.com/a@b',
    ],
    [
      'git clone ssh://git@github.com/x https://host:8080/path@tag',
      'git clone ssh://git@github.com/x https://host:8080/path@tag',
    ],
    // A help text's template and a password masked already are not passwords.
    ['allowed: http://[user:password@]host:port', 'allowed: http://[user:password@]host:port'],
    ['proxy http://corp:****@corp-proxy:8080', 'proxy http://corp:****@corp-proxy:8080'],
  ];
  for (const [text, masked] of cases) assert.is(redactor.text(text), masked, text);
  h.remove();
});

test('well-known key shapes are masked even when never configured; short and ordinary text is left alone', () => {
  const redactor = new Redactor(['k1', 'hunter2-very-secret']);
  const cases: [string, string][] = [
    [
      'Incorrect API key provided: sk-proj-abcdefghijklmnopqrstuvwxyz012345.',
      'Incorrect API key provided: [REDACTED].',
    ],
    ['Authorization: Bearer abcdefghijklmnopqrstuvwxyz', 'Authorization: Bearer [REDACTED]'],
    ['token ghp_abcdefghijklmnopqrstuvwxyz0123456789', 'token [REDACTED]'],
    ['pw=hunter2-very-secret;', 'pw=hunt…et;'],
    ['ok1 k1 look', 'ok1 k1 look'],
  ];
  for (const [input, output] of cases) assert.is(redactor.text(input), output, input);
});

test('values are redacted deep inside, without touching the original; clean parts are the same objects', () => {
  const redactor = new Redactor(['hunter2-very-secret']);
  const clean = { text: 'nothing here' };
  const input = { list: ['a', 'pw hunter2-very-secret'], nested: { deeper: 'hunter2-very-secret' }, clean, n: 3 };
  const output = redactor.value(input);
  assert.equal(output, { list: ['a', 'pw hunt…et'], nested: { deeper: 'hunt…et' }, clean, n: 3 });
  assert.is(output.clean, clean);
  assert.equal(input, {
    list: ['a', 'pw hunter2-very-secret'],
    nested: { deeper: 'hunter2-very-secret' },
    clean,
    n: 3,
  });
  const untouched = { a: ['x'], b: { c: 'y' } };
  assert.is(redactor.value(untouched), untouched);
});

test('a bus built with the redactor publishes, delivers and records every event with its secrets masked', () => {
  const redactor = new Redactor(['hunter2-very-secret']);
  const bus = new InProcessBus(undefined, { redact: (data) => redactor.value(data) });
  const seen: unknown[] = [];
  bus.events$.subscribe((e) => seen.push(e.data));
  const data = {
    channel: 'telegram',
    chat: 'direct:1',
    text: 'the key is hunter2-very-secret',
    send_key: 'k',
    part: 0,
    message_id: '1',
    media: [],
  };
  const envelope = bus.publish({ type: 'message.sent', data });
  assert.is(envelope.data.text, 'the key is hunt…et');
  assert.equal(seen, [{ ...data, text: 'the key is hunt…et' }]);
  assert.is(data.text, 'the key is hunter2-very-secret', "the publisher's object is not modified");
});
test.run();
