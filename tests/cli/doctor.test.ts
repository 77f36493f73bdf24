import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import { nodeCheck } from '../../adapters/cli/doctor/host-checks.js';
import { runCliAsync } from '../support/cli.js';
import { modelEntry, startGatewayProcess } from '../support/gateway-process.js';
import { startLoopbackProxy } from '../support/loopback-proxy.js';
import { freePort } from '../support/mcp-servers.js';
import { TelegramEmulator } from '../support/telegram-emulator.js';
import type { TempHome } from '../support/temp-home.js';
import { completion } from '../support/vendor-chat-completions.js';
import { homeAndVendorSuite } from '../support/vendor-suite.js';

const tern = runCliAsync;

type Check = { name: string; status: string; message: string; details?: string[] };

async function doctor(
  home: TempHome,
  ...flags: string[]
): Promise<{ code: number | null; checks: Map<string, Check> }> {
  const result = await tern(['doctor', '--json', ...flags], home.env);
  const body = JSON.parse(result.stdout) as { ok: boolean; checks: Check[] };
  assert.is(body.ok, result.code === 0);
  return { code: result.code, checks: new Map(body.checks.map((c) => [c.name, c])) };
}

const write = (home: TempHome, config: Record<string, unknown>) =>
  writeFileSync(join(home.home, 'config.json'), JSON.stringify({ version: 2, ...config }), { mode: 0o600 });

const test = homeAndVendorSuite('tern doctor', async (ctx) => {
  mkdirSync(ctx.home.home, { recursive: true, mode: 0o700 });
});

test('Node 20 or newer is needed', () => {
  assert.equal(nodeCheck('20.19.0'), { name: 'node', status: 'ok', message: 'v20.19.0 (20 or newer needed)' });
  assert.equal(nodeCheck('18.20.4'), {
    name: 'node',
    status: 'error',
    message: 'v18.20.4 is older than Node 20',
    fix: 'install Node 20 or newer',
  });
});

test('a secret file readable by others is an error; --fix makes it owner-only and says so', async ({ home }) => {
  write(home, {});
  writeFileSync(join(home.home, '.security.yml'), 'model_list: {}\n', { mode: 0o644 });
  chmodSync(join(home.home, '.security.yml'), 0o644);
  const before = await doctor(home, '--offline');
  assert.is(before.code, 1);
  assert.equal(before.checks.get('file modes'), {
    name: 'file modes',
    status: 'error',
    message: '1 secret file is readable by other users',
    details: [`${join(home.home, '.security.yml')} (mode 0644)`],
    fix: 'run `tern doctor --fix` (it only takes group and other bits away)',
  } as Check);
  const fixed = await doctor(home, '--offline', '--fix');
  assert.equal(fixed.checks.get('file modes')?.status, 'fixed');
  assert.is(statSync(join(home.home, '.security.yml')).mode & 0o777, 0o600);
  assert.is((await doctor(home, '--offline')).checks.get('file modes')?.status, 'ok');
});

test('config problems are errors, each listed; --offline asks no model', async ({ home, vendor }) => {
  write(home, {
    heartbeat: { interval: 1 },
    agents: { defaults: { model: 'fsat' } },
    model_list: [
      { model_name: 'fast', provider: 'openai', model: 'x', api_base: `${vendor.url}/v1`, api_keys: ['sk-test-1'] },
    ],
  });
  const { code, checks } = await doctor(home, '--offline');
  assert.is(code, 1);
  assert.equal(checks.get('config')?.details, [
    'heartbeat.interval: 1 is too small (allowed: whole numbers 5 or more)',
    'agents.defaults.model: "fsat" is not a model_name in model_list (allowed: fast)',
  ]);
  assert.is(vendor.requests.length, 0);
});

test('a version 0 file is a warning; --fix migrates it with a backup', async ({ home }) => {
  writeFileSync(
    join(home.home, 'config.json'),
    JSON.stringify({
      providers: { openai: { api_key: 'sk-v0-doctor-000000001' } },
      agents: { defaults: { model: 'gpt-4o-mini', provider: 'openai' } },
    }),
  );
  const before = await doctor(home, '--offline');
  assert.equal(
    [before.checks.get('migration')?.status, before.checks.get('migration')?.message],
    ['warn', `${join(home.home, 'config.json')} is config version 0`],
  );
  const after = await doctor(home, '--offline', '--fix');
  assert.is(after.checks.get('migration')?.status, 'fixed');
  assert.is((JSON.parse(readFileSync(join(home.home, 'config.json'), 'utf8')) as { version: number }).version, 2);
  assert.ok(
    readdirSync(home.home).some((f) => f.startsWith('config.json.bak-')),
    'a backup is kept',
  );
  assert.not.ok((await doctor(home, '--offline')).checks.has('migration'));
});

test('each model gets one short question: a working one answers, a refused key is an error', async ({
  home,
  vendor,
}) => {
  write(home, {
    agents: { defaults: { model: 'good' } },
    model_list: [
      {
        model_name: 'good',
        provider: 'openai',
        model: 'gpt-test',
        api_base: `${vendor.url}/v1`,
        api_keys: ['sk-test-good-0001'],
      },
      {
        model_name: 'bad',
        provider: 'openai',
        model: 'gpt-test',
        api_base: `${vendor.url}/bad/v1`,
        api_keys: ['sk-test-bad-00001'],
      },
    ],
  });
  vendor.reply(completion({ content: 'OK' }), {
    status: 401,
    headers: { 'content-type': 'application/json' },
    chunks: [JSON.stringify({ error: { message: 'Incorrect API key provided', type: 'invalid_request_error' } })],
  });
  const { code, checks } = await doctor(home);
  assert.is(code, 1);
  assert.match(checks.get('model good')!.message, /^answered in \d+\.\d s$/);
  assert.equal(checks.get('model good')?.status, 'ok');
  assert.is(checks.get('model bad')?.status, 'error');
  assert.match(checks.get('model bad')!.message, /^auth: /);
  assert.is(vendor.requests.length, 2, 'one question each');
});

test('each enabled channel gets one authenticated call: reachable through its base_url, unreachable named', async ({
  home,
}) => {
  const emulator = await TelegramEmulator.start();
  try {
    const dead = await freePort();
    write(home, {
      channel_list: {
        telegram: { enabled: true, settings: { token: '123456:doctor-test-token', base_url: emulator.url } },
        backup: {
          enabled: true,
          type: 'telegram',
          settings: { token: '654321:doctor-test-token', base_url: `http://127.0.0.1:${dead}` },
        },
        off: { enabled: false, type: 'telegram', settings: { token: '1:x' } },
      },
    });
    const { checks } = await doctor(home);
    assert.is(checks.get('channel telegram')?.status, 'ok');
    assert.match(checks.get('channel telegram')!.message, /^reachable as @/);
    assert.equal(
      [checks.get('channel backup')?.status, checks.get('channel backup')?.message],
      ['error', 'unreachable (ECONNREFUSED)'],
    );
    assert.not.ok(checks.has('channel off'));
  } finally {
    await emulator.stop();
  }
});

test("a channel's call goes through its settings.proxy, as the channel's own calls do", async ({ home }) => {
  const emulator = await TelegramEmulator.start();
  const proxy = await startLoopbackProxy();
  try {
    write(home, {
      channel_list: {
        telegram: {
          enabled: true,
          settings: { token: '123456:proxied-token', base_url: emulator.url, proxy: proxy.url },
        },
      },
    });
    const { checks } = await doctor(home);
    assert.is(checks.get('channel telegram')?.status, 'ok');
    assert.equal(proxy.seen, [`GET ${emulator.url}/bot123456:proxied-token/getMe`]);
  } finally {
    await proxy.close();
    await emulator.stop();
  }
});

test('bubblewrap present and working is ok; missing, exec runs on the command guard alone (a warning)', async ({
  home,
}) => {
  write(home, {});
  assert.equal((await doctor(home, '--offline')).checks.get('isolation'), {
    name: 'isolation',
    status: 'ok',
    message: 'exec runs inside bubblewrap (bubblewrap 0.8.0)',
  });
  // A PATH with no programs on it: node is started by its full path.
  const noBwrap = { ...home.env, PATH: home.home };
  const result = await tern(['doctor', '--json', '--offline'], noBwrap);
  const isolation = (JSON.parse(result.stdout) as { checks: Check[] }).checks.find((c) => c.name === 'isolation');
  assert.is(isolation?.status, 'warn');
  assert.match(isolation!.message, /^exec runs without isolation: bwrap is not installed/);
});

test('a log larger than rotation allows is a warning', async ({ home }) => {
  write(home, { gateway: { log_max_size_mb: 1, log_max_backups: 0 } });
  mkdirSync(join(home.home, 'logs'), { recursive: true });
  writeFileSync(join(home.home, 'logs', 'gateway.log'), Buffer.alloc(1.5 * 1024 * 1024, 'x'));
  const logs = (await doctor(home, '--offline')).checks.get('logs');
  assert.equal([logs?.status, logs?.message], ['warn', '1 log is larger than rotation allows']);
  assert.equal(logs?.details, [`${join(home.home, 'logs', 'gateway.log')}: 1.5 MB (rotation keeps it under 1.0 MB)`]);
});

test('a lock note a writer that is gone left behind is a warning; --fix removes it', async ({ home }) => {
  write(home, {});
  mkdirSync(home.sessions, { recursive: true });
  writeFileSync(join(home.sessions, 'writer.pid'), '999999');
  assert.is((await doctor(home, '--offline')).checks.get('log lock')?.status, 'warn');
  assert.is((await doctor(home, '--offline', '--fix')).checks.get('log lock')?.status, 'fixed');
  assert.not.ok(existsSync(join(home.sessions, 'writer.pid')));
});

test('a running gateway is seen, and its lock is not stale', async ({ vendor }) => {
  const gateway = await startGatewayProcess({
    gateway: { port: await freePort() },
    heartbeat: { enabled: false },
    agents: { defaults: { model: 'fast' } },
    model_list: [modelEntry(vendor.url)],
  });
  try {
    const { checks } = await doctor(gateway.home, '--offline');
    assert.equal(
      [checks.get('gateway')?.status, checks.get('gateway')?.message],
      ['ok', `running (${gateway.url}/health)`],
    );
    assert.not.ok(checks.has('log lock'));
  } finally {
    await gateway.stop();
    gateway.home.remove();
  }
});

test.run();
