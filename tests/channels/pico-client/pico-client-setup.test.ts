// `tern onboard --pico-client-url` and `tern doctor`'s check of a `pico_client` entry, against a Pico server emulator.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parse as parseYaml } from 'yaml';
import { runCliAsync } from '../../support/cli.js';
import { tempHome, type TempHome } from '../../support/temp-home.js';
import { PicoServerEmulator } from './pico-server-emulator.js';

type Check = { name: string; status: string; message: string };

const setup = suite<{ home: TempHome }>('onboard flags and the doctor check of a Pico client channel');

setup.before.each((context) => {
  context.home = tempHome();
  mkdirSync(context.home.home, { recursive: true });
});

setup.after.each((context) => context.home.remove());

const read = (home: TempHome, file: string): string => readFileSync(join(home.home, file), 'utf8');

setup('onboard adds the entry: its address in config.json, the token in .security.yml', async ({ home }) => {
  const flags = ['--pico-client-url', 'wss://pico.example.com/pico/ws', '--pico-client-token', 'pc-token-1'];
  const result = await runCliAsync(['onboard', '--no-test', '--json', ...flags], home.env);
  assert.is(result.code, 0, result.stdout + result.stderr);
  assert.equal((JSON.parse(read(home, 'config.json')) as { channel_list: unknown }).channel_list, {
    pico_client: { enabled: true, type: 'pico_client', settings: { url: 'wss://pico.example.com/pico/ws' } },
  });
  assert.equal(parseYaml(read(home, '.security.yml')).channel_list, { pico_client: { token: 'pc-token-1' } });
  const alone = await runCliAsync(['onboard', '--no-test', '--pico-client-token', 'x'], home.env);
  assert.is(alone.code, 2, alone.stderr);
  assert.ok(alone.stderr.includes('--pico-client-token needs --pico-client-url'), alone.stderr);
});

setup('doctor connects with the token: taken is ok, refused or a bad address an error', async ({ home }) => {
  const pico = await PicoServerEmulator.start();
  try {
    const entry = (settings: Record<string, unknown>) => ({ enabled: true, type: 'pico_client', settings });
    writeFileSync(
      join(home.home, 'config.json'),
      JSON.stringify({
        version: 2,
        channel_list: {
          pico: entry({ url: pico.url, token: pico.token }),
          pico_bad: entry({ url: pico.url, token: 'wrong' }),
          pico_http: entry({ url: 'http://127.0.0.1:1/pico/ws' }),
        },
      }),
      { mode: 0o600 },
    );
    const result = await runCliAsync(['doctor', '--json'], home.env);
    const checks = new Map((JSON.parse(result.stdout) as { checks: Check[] }).checks.map((c) => [c.name, c]));
    const got = (name: string): [string, string] => [
      checks.get(`channel ${name}`)?.status ?? '',
      checks.get(`channel ${name}`)?.message ?? '',
    ];
    assert.equal(got('pico'), ['ok', 'connected (the server took the token)']);
    assert.equal(got('pico_bad'), ['error', 'the Pico server refused the token (HTTP 401)']);
    assert.equal(got('pico_http'), [
      'error',
      'channel_list.pico_http.settings.url: must be a ws:// or wss:// URL (allowed: e.g. wss://host/pico/ws)',
    ]);
    assert.is(pico.connections(), 1, 'one connection, the good token');
    assert.not.ok(result.stdout.includes(pico.token), 'the token is not shown');
  } finally {
    await pico.close();
  }
});

setup('config validate names a missing url', async ({ home }) => {
  writeFileSync(
    join(home.home, 'config.json'),
    JSON.stringify({ version: 2, channel_list: { pico_client: { enabled: true, type: 'pico_client', settings: {} } } }),
    { mode: 0o600 },
  );
  const result = await runCliAsync(['config', 'validate'], home.env);
  assert.is(result.code, 1, result.stdout + result.stderr);
  assert.ok(
    result.stdout.includes(
      'channel_list.pico_client.settings.url: is required for an enabled pico_client channel ' +
        '(allowed: the ws:// or wss:// address of the Pico server',
    ),
    result.stdout,
  );
});

setup.run();
