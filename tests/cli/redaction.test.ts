// No command prints a key in full, not even when the provider quotes it back: a 401 that says "Incorrect API key
// provided: <the key>" reaches the screen as `tern…89` (the report: `tern doctor`, text and --json, and
// `tern onboard --api-key` printed the whole key; doctor output is what people paste into bug reports).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import { runCliAsync } from '../support/cli.js';
import { startGatewayProcess } from '../support/gateway-process.js';
import { freePort } from '../support/mcp-servers.js';
import { homeAndVendorSuite } from '../support/vendor-suite.js';
import type { TempHome } from '../support/temp-home.js';
import type { VendorServer } from '../support/vendor-server.js';

/** A key of no well-known shape: only the configured secrets can mask it. */
const KEY = 'tern-first-day-key-0123456789';
const MASKED = 'tern…89';
/** An OpenAI-shaped key Tern was never told about. */
const FOREIGN = 'sk-proj-NeverConfigured0123456789abcdef';

/** The vendor's 401, quoting the key it was sent, as OpenAI's once did. */
function echoKey(vendor: VendorServer): void {
  const refuse = (request: { headers: Record<string, unknown> }) => {
    const sent = String(request.headers.authorization ?? '').replace(/^Bearer /, '');
    const body = {
      error: {
        message:
          `Incorrect API key provided: ${sent}. ` +
          `You can find your API key at https://example.com/keys. Also tried ${FOREIGN}.`,
        type: 'invalid_request_error',
        code: 'invalid_api_key',
      },
    };
    return { status: 401, headers: { 'content-type': 'application/json' }, chunks: [JSON.stringify(body)] };
  };
  for (let i = 0; i < 10; i++) vendor.reply(refuse);
}

function writeConfig(home: TempHome, vendor: VendorServer, extra: Record<string, unknown> = {}): void {
  mkdirSync(home.home, { recursive: true, mode: 0o700 });
  writeFileSync(
    join(home.home, 'config.json'),
    JSON.stringify({
      version: 2,
      agents: { defaults: { model: 'fast' } },
      model_list: [{ model_name: 'fast', provider: 'openai', model: 'gpt-test', api_base: `${vendor.url}/v1` }],
      ...extra,
    }),
    { mode: 0o600 },
  );
  writeFileSync(join(home.home, '.security.yml'), `model_list:\n  fast:\n    api_keys: ["${KEY}"]\n`, { mode: 0o600 });
}

function assertMasked(output: string, what: string): void {
  assert.not.ok(output.includes(KEY), `${what} printed the key: ${output}`);
  assert.not.ok(output.includes(FOREIGN), `${what} printed a key of a known shape: ${output}`);
}

const test = homeAndVendorSuite('what commands print is redacted');

test('tern doctor, text and --json: the key the provider quotes in its 401 is masked', async ({ home, vendor }) => {
  writeConfig(home, vendor);
  echoKey(vendor);
  const text = await runCliAsync(['doctor'], home.env);
  assert.is(text.code, 1);
  assertMasked(text.stdout + text.stderr, 'doctor');
  assert.ok(text.stdout.includes(`Incorrect API key provided: ${MASKED}. `), text.stdout);
  assert.ok(text.stdout.includes('Also tried [REDACTED].'), text.stdout);
  const json = await runCliAsync(['doctor', '--json'], home.env);
  assertMasked(json.stdout + json.stderr, 'doctor --json');
  const model = (JSON.parse(json.stdout) as { checks: Array<{ name: string; message: string }> }).checks.find(
    (c) => c.name === 'model fast',
  );
  assert.match(model?.message ?? '', new RegExp(`^auth: .*Incorrect API key provided: ${MASKED}\\. `));
});

test('tern onboard --api-key: the key the first question is refused with is masked', async ({ home, vendor }) => {
  echoKey(vendor);
  const args = [
    'onboard',
    '--provider',
    'openai',
    '--api-key',
    KEY,
    '--api-base',
    `${vendor.url}/v1`,
    '--model',
    'gpt-test',
  ];
  const text = await runCliAsync(args, home.env);
  assert.is(text.code, 1);
  assertMasked(text.stdout + text.stderr, 'onboard');
  assert.ok(
    text.stdout.includes(`✗ model gpt-test: auth: `) && text.stdout.includes(`Incorrect API key provided: ${MASKED}. `),
    text.stdout,
  );
  home.remove();
  echoKey(vendor);
  const json = await runCliAsync([...args, '--json'], home.env);
  assertMasked(json.stdout + json.stderr, 'onboard --json');
  assert.ok(json.stdout.includes(`Incorrect API key provided: ${MASKED}. `), json.stdout);
});

test('tern agent -m: the error the turn fails with is masked', async ({ home, vendor }) => {
  writeConfig(home, vendor);
  echoKey(vendor);
  const result = await runCliAsync(['agent', '-m', 'hello'], home.env);
  assert.is(result.code, 1);
  assertMasked(result.stdout + result.stderr, 'agent');
  assert.ok((result.stdout + result.stderr).includes(MASKED), result.stdout + result.stderr);
});

test('tern status: a key written into api_base is masked', async ({ home, vendor }) => {
  writeConfig(home, vendor, {
    model_list: [
      { model_name: 'fast', provider: 'openai', model: 'gpt-test', api_base: `${vendor.url}/v1?key=${KEY}` },
    ],
  });
  const text = await runCliAsync(['status'], home.env);
  assert.is(text.code, 0);
  assertMasked(text.stdout + text.stderr, 'status');
  assert.ok(text.stdout.includes(`base ${vendor.url}/v1?key=${MASKED}  1 key (${MASKED})`), text.stdout);
  const json = await runCliAsync(['status', '--json'], home.env);
  assertMasked(json.stdout, 'status --json');
});

test('tern config validate: a key pasted into the wrong field is masked in the problem that quotes it', async ({
  home,
  vendor,
}) => {
  writeConfig(home, vendor, {
    model_list: [{ model_name: 'fast', provider: 'openai', model: 'gpt-test', api_base: KEY }],
  });
  const result = await runCliAsync(['config', 'validate'], home.env);
  assert.is(result.code, 1);
  assertMasked(result.stdout + result.stderr, 'config validate');
  assert.is(
    result.stdout,
    `model_list[0].api_base: "${MASKED}" is not an http(s) URL (allowed: ` +
      `an address such as https://api.openai.com/v1)\n`,
  );
});

test('a CLI error that quotes a key (here a usage error naming the flag value) is masked', async ({ home, vendor }) => {
  writeConfig(home, vendor);
  const result = await runCliAsync(['agent', '--model', KEY, '-m', 'hi'], home.env);
  assert.is(result.code, 1);
  assert.is(
    result.stderr,
    `tern: no model named "${MASKED}" (model_list has: fast). ` +
      `Pick one of those with --model, or add it to model_list.\n`,
  );
});

const TOKEN = '123456:FirstDayBotToken-abcdefghij';

test(
  'tern status with a gateway running: ' + 'a channel whose platform quotes the token in its 401 shows it masked',
  async ({ vendor }) => {
    // The Bot API's answer to getMe, quoting the token in the URL it was called with.
    for (let i = 0; i < 20; i++) {
      vendor.reply((request) => ({
        status: 401,
        headers: { 'content-type': 'application/json' },
        chunks: [
          JSON.stringify({
            ok: false,
            error_code: 401,
            description: `Unauthorized: ${decodeURIComponent(request.url.split('/')[1]!.slice(3))} is revoked`,
          }),
        ],
      }));
    }
    const gateway = await startGatewayProcess({
      gateway: { port: await freePort() },
      heartbeat: { enabled: false },
      channel_list: {
        telegram: {
          enabled: true,
          settings: { token: TOKEN, base_url: vendor.url, allow_from: ['*'], restart_backoff_ms: 60_000 },
        },
      },
    });
    try {
      const ready = await gateway.ready();
      assert.equal(ready.body.channels, [
        { name: 'telegram', state: 'failed', reason: 'Bot API getMe: Unauthorized: 1234…ij is revoked' },
      ]);
      const status = await runCliAsync(['status'], gateway.home.env);
      assert.not.ok((status.stdout + status.stderr).includes(TOKEN), status.stdout);
      assert.ok(
        status.stdout.includes('enabled  failed, retrying: Bot API getMe: Unauthorized: 1234…ij is revoked'),
        status.stdout,
      );
    } finally {
      await gateway.stop();
      gateway.home.remove();
    }
  },
);

test.run();
