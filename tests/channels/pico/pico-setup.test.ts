// `tern onboard --pico-token` and `tern doctor`'s check of a `pico` entry where no gateway of its own runs: the token
// it holds, and what answers on the gateway's port (nothing, or another program's HTTP server).
import { mkdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parse as parseYaml } from 'yaml';
import { runCliAsync } from '../../support/cli.js';
import { freePort } from '../../support/telegram-emulator.js';
import { tempHome, type TempHome } from '../../support/temp-home.js';
import { channelDoctor } from '../doctor-checks.js';

const TOKEN = 'pico-setup-token-0123456789abcdef';

const setup = suite<{ home: TempHome }>('onboard flags and the doctor check of a Pico server channel');

setup.before.each((context) => {
  context.home = tempHome();
  mkdirSync(context.home.home, { recursive: true });
});

setup.after.each((context) => context.home.remove());

const read = (home: TempHome, file: string): string => readFileSync(join(home.home, file), 'utf8');

setup('onboard adds the entry, its token in .security.yml; --help names the flag', async ({ home }) => {
  const result = await runCliAsync(['onboard', '--no-test', '--json', '--pico-token', TOKEN], home.env);
  assert.is(result.code, 0, result.stdout + result.stderr);
  assert.equal((JSON.parse(read(home, 'config.json')) as { channel_list: unknown }).channel_list, {
    pico: { enabled: true, type: 'pico' },
  });
  assert.equal(parseYaml(read(home, '.security.yml')).channel_list, { pico: { token: TOKEN } });
  assert.not.ok(result.stdout.includes(TOKEN), 'the token is not shown');
  const help = await runCliAsync(['onboard', '--help'], home.env);
  assert.match(help.stdout, '--pico-token TOKEN');
  assert.match(help.stdout, 'add an enabled Pico channel, `tern gateway` at /pico/ws: the token its clients show');
});

setup('doctor: a free port is ok; a short, a missing or a bad setting is named', async ({ home }) => {
  const port = await freePort();
  const pico = (settings: Record<string, unknown>) => ({ enabled: true, type: 'pico', settings });
  const doctor = await channelDoctor(
    home,
    {
      pico: pico({ token: TOKEN }),
      pico_short: pico({ token: 'short' }),
      pico_none: pico({}),
      pico_bad: pico({ token: TOKEN, max_connections: 0 }),
    },
    { host: '127.0.0.1', port },
  );
  const url = `ws://127.0.0.1:${port}/pico/ws`;
  assert.equal(doctor.check('pico'), ['ok', `no gateway runs; port ${port} is free for ${url}`]);
  assert.equal(doctor.check('pico_short'), ['warn', 'the token is 5 characters: a short one can be guessed']);
  assert.equal(doctor.check('pico_none'), ['warn', '`tern gateway` cannot serve it without a token']);
  assert.equal(doctor.check('pico_bad'), [
    'error',
    'channel_list.pico_bad.settings.max_connections: Too small: expected number to be >=1',
  ]);
  assert.not.ok(doctor.stdout.includes(TOKEN), 'the token is not shown');
});

setup('doctor: another program on the gateway port is an error', async ({ home }) => {
  const other = createServer((_req, res) => res.writeHead(404).end('not here'));
  await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
  const port = (other.address() as { port: number }).port;
  try {
    const doctor = await channelDoctor(
      home,
      { pico: { enabled: true, type: 'pico', settings: { token: TOKEN } } },
      { host: '127.0.0.1', port },
    );
    assert.equal(doctor.check('pico'), [
      'error',
      `ws://127.0.0.1:${port}/pico/ws answered a client without the token with HTTP 404 not here, not 401`,
    ]);
  } finally {
    other.close();
  }
});

setup.run();
