import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import { parse as parseYaml } from 'yaml';
import { runCliAsync } from '../support/cli.js';
import { screenLines, ternOnTerminal } from '../support/pty.js';
import type { TempHome } from '../support/temp-home.js';
import { completion } from '../support/vendor-chat-completions.js';
import { homeAndVendorSuite } from '../support/vendor-suite.js';

const tern = runCliAsync;

const KEY = 'sk-onboard-test-key-000000000001';

const test = homeAndVendorSuite('tern onboard', async (ctx) => {
  mkdirSync(ctx.home.home, { recursive: true });
});

const read = (home: TempHome, file: string) => readFileSync(join(home.home, file), 'utf8');

test(
  'flags answer every question: the model goes to config.json, ' +
    'its key to .security.yml (0600, comments kept), then one test call says it works',
  async ({ home, vendor }) => {
    vendor.reply(completion({ content: 'OK' }));
    const result = await tern(
      ['onboard', '--provider', 'openai', '--api-key', KEY, '--api-base', `${vendor.url}/v1`, '--model', 'gpt-4o-mini'],
      home.env,
    );
    assert.is(result.code, 0, result.stdout + result.stderr);
    const lines = result.stdout.trim().split('\n');
    assert.equal(
      lines.slice(-3).map((l) => l.replace(/\d+\.\d s/, 'T')),
      [
        'Saved model gpt-4o-mini (keys and tokens in .security.yml).',
        '✓ model gpt-4o-mini: answered in T',
        'Next: `tern agent` to chat here, `tern doctor` to check everything.',
      ],
    );
    const config = JSON.parse(read(home, 'config.json')) as {
      agents: { defaults: { model: string } };
      model_list: unknown[];
    };
    assert.is(config.agents.defaults.model, 'gpt-4o-mini');
    assert.equal(config.model_list, [
      { model_name: 'gpt-4o-mini', provider: 'openai', model: 'gpt-4o-mini', api_base: `${vendor.url}/v1` },
    ]);
    assert.not.ok(read(home, 'config.json').includes(KEY), 'no key in config.json');
    const secrets = read(home, '.security.yml');
    assert.ok(
      secrets.startsWith('# Tern credentials: keys and tokens kept apart from config.json.'),
      'the starter comments stay',
    );
    assert.equal(parseYaml(secrets), { model_list: { 'gpt-4o-mini': { api_keys: [KEY] } } });
    assert.is(statSync(join(home.home, '.security.yml')).mode & 0o777, 0o600);
    assert.is(vendor.requests[0]!.headers.authorization, `Bearer ${KEY}`);
  },
);

test('a failing test call is said and exits 1; what was given stays saved', async ({ home, vendor }) => {
  vendor.reply({
    status: 401,
    headers: { 'content-type': 'application/json' },
    chunks: [
      JSON.stringify({
        error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' },
      }),
    ],
  });
  const result = await tern(
    [
      'onboard',
      '--provider',
      'openai',
      '--api-key',
      KEY,
      '--api-base',
      `${vendor.url}/v1`,
      '--model',
      'gpt-4o-mini',
      '--telegram-token',
      '123456:ABCdefGhIJKlmNoPQRsTUVwxyZ012345678',
      '--json',
    ],
    home.env,
  );
  assert.is(result.code, 1);
  const body = JSON.parse(result.stdout) as {
    ok: boolean;
    tests: Array<{ name: string; status: string; message: string }>;
  };
  assert.is(body.ok, false);
  assert.equal(
    body.tests.map((t) => [t.name, t.status]),
    [
      ['model gpt-4o-mini', 'error'],
      ['channel telegram', 'error'],
    ],
  );
  assert.match(body.tests[0]!.message, /^auth: /);
  assert.not.match(result.stdout, /ABCdefGhIJ/, 'the token never shows');
  const config = JSON.parse(read(home, 'config.json')) as { channel_list: unknown };
  assert.equal(config.channel_list, { telegram: { enabled: true, type: 'telegram' } });
  assert.equal(parseYaml(read(home, '.security.yml')).channel_list, {
    telegram: { token: '123456:ABCdefGhIJKlmNoPQRsTUVwxyZ012345678' },
  });
});

test(
  "--owner lists you in the channel's allow_from; " + 'without it, onboarding says everyone gets a pairing code first',
  async ({ home }) => {
    const token = '123456:OwnerFlagTokenABCdefGhIJKlmNoPQRs';
    const owned = await tern(['onboard', '--telegram-token', token, '--owner', '1001, @alice', '--no-test'], home.env);
    assert.is(owned.code, 0);
    const config = JSON.parse(read(home, 'config.json')) as { channel_list: unknown };
    assert.equal(config.channel_list, {
      telegram: { enabled: true, type: 'telegram', settings: { allow_from: ['1001', '@alice'] } },
    });
    assert.is(
      owned.stdout.trim().split('\n').at(-1),
      'The bot answers 1001, @alice (allow_from); ' +
        'a stranger gets a pairing code, and `tern pairing approve CODE` lets them in.',
    );
    home.remove();
    const open = await tern(['onboard', '--telegram-token', token, '--no-test'], home.env);
    assert.is(
      open.stdout.trim().split('\n').at(-1),
      'No one is listed in allow_from yet: whoever writes to the bot, you too, ' +
        'gets no answer but a pairing code, and `tern pairing approve CODE` lets them in.',
    );
    const lone = await tern(['onboard', '--owner', '1001'], home.env);
    assert.equal(
      [lone.code, lone.stderr],
      [
        2,
        'tern: wrong usage (--owner needs a channel to let you into (--telegram-token, ' +
          '--discord-token or --slack-token)). Run `tern help onboard`.\n',
      ],
    );
  },
);

test('flags that cannot make a working entry are usage errors, and nothing is written', async ({ home }) => {
  const cases: Array<[string[], string]> = [
    [['--provider', 'openia'], 'tern: wrong usage (--provider "openia" is not a provider (allowed: openai, '],
    [
      ['--provider', 'openai'],
      'tern: wrong usage (--provider openai needs --api-key). Pass the key, or pick a local provider such as ollama.\n',
    ],
    [
      ['--provider', 'custom', '--model', 'x'],
      'tern: wrong usage (--provider custom needs --api-base (it has no default address)).',
    ],
    [['--model', 'gpt-4o'], 'tern: wrong usage (--api-key, --api-base, --model and --model-name need --provider).'],
    [
      ['--slack-token', 'xoxb-1'],
      'tern: wrong usage (Slack needs both --slack-token (xoxb-…) and --slack-app-token (xapp-…)).',
    ],
  ];
  for (const [flags, message] of cases) {
    const result = await tern(['onboard', ...flags], home.env);
    assert.is(result.code, 2, flags.join(' '));
    assert.ok(result.stderr.startsWith(message), `${flags.join(' ')}: ${result.stderr}`);
  }
  assert.throws(() => statSync(join(home.home, 'config.json')));
});

test('a model_name already in model_list is refused, naming the flag to pick another', async ({ home, vendor }) => {
  writeFileSync(
    join(home.home, 'config.json'),
    JSON.stringify({ version: 2, model_list: [{ model_name: 'llama3.2', provider: 'ollama', model: 'llama3.2' }] }),
  );
  const result = await tern(
    ['onboard', '--provider', 'ollama', '--api-base', `${vendor.url}/v1`, '--no-test'],
    home.env,
  );
  assert.is(result.code, 1);
  assert.match(
    result.stderr,
    /model_list: already has a model_name "llama3\.2" \(allowed: a new name; pick another with --model-name\)/,
  );
  const second = await tern(
    ['onboard', '--provider', 'ollama', '--api-base', `${vendor.url}/v1`, '--model-name', 'local', '--no-test'],
    home.env,
  );
  assert.is(second.code, 0, second.stderr);
  assert.equal(
    (JSON.parse(read(home, 'config.json')) as { model_list: Array<{ model_name: string }> }).model_list.map(
      (m) => m.model_name,
    ),
    ['llama3.2', 'local'],
  );
});

test('on a terminal it asks: provider from the catalogue, key unseen, model (no test call: --no-test)', async ({
  home,
}) => {
  const run = await ternOnTerminal(['onboard', '--no-test'], home.env, [
    { after: 'Provider [openai]: ', type: 'openai\r' },
    { after: 'not shown as you type): ', type: `${KEY}\r` },
    { after: 'Model id [gpt-4o-mini]: ', type: '\r' },
    { after: 'Telegram bot token from @BotFather (Enter to skip): ', type: '\r' },
    { after: 'Discord bot token (Enter to skip): ', type: '\r' },
    { after: 'Slack bot token, xoxb-… (Enter to skip): ', type: '\r' },
  ]);
  const lines = screenLines(run.raw);
  assert.ok(
    lines.some((l) => /^\s+\d+\. ollama \(runs on your machine or network, no key\)$/.test(l)),
    'local providers are offered',
  );
  assert.not.ok(run.raw.includes(KEY), 'the key is never echoed');
  // A hosted provider's address is its default: not asked.
  const config = JSON.parse(read(home, 'config.json')) as { model_list: Array<Record<string, unknown>> };
  assert.equal(config.model_list, [{ model_name: 'gpt-4o-mini', provider: 'openai', model: 'gpt-4o-mini' }]);
  assert.equal(parseYaml(read(home, '.security.yml')).model_list, { 'gpt-4o-mini': { api_keys: [KEY] } });
  assert.ok(lines.includes('Saved model gpt-4o-mini (keys and tokens in .security.yml).'), lines.join('\n'));
});

test('on a terminal with a local provider it asks the address, and the test call goes there', async ({
  home,
  vendor,
}) => {
  vendor.reply(completion({ content: 'OK' }));
  const run = await ternOnTerminal(['onboard'], home.env, [
    { after: 'Provider [openai]: ', type: 'ollama\r' },
    { after: 'Address of its API [http://localhost:11434/v1]: ', type: `${vendor.url}/v1\r` },
    { after: 'Model id [llama3.2]: ', type: '\r' },
    { after: '(Enter to skip): ', type: '\r' },
    { after: 'Discord bot token (Enter to skip): ', type: '\r' },
    { after: 'Slack bot token, xoxb-… (Enter to skip): ', type: '\r' },
  ]);
  assert.is(run.code, 0, run.raw);
  const lines = screenLines(run.raw).map((l) => l.replace(/\d+\.\d s/, 'T'));
  assert.ok(lines.includes('✓ model llama3.2: answered in T'), lines.join('\n'));
  assert.is(vendor.requests.length, 1);
  assert.equal((JSON.parse(read(home, 'config.json')) as { model_list: unknown[] }).model_list, [
    { model_name: 'llama3.2', provider: 'ollama', model: 'llama3.2', api_base: `${vendor.url}/v1` },
  ]);
});

test.run();
