// `tern onboard` flags and the `tern doctor` check of the Signal channel, against the loopback signal-cli daemon.
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { runCliAsync } from '../../support/cli.js';
import { channelDoctor } from '../doctor-checks.js';
import { SignalCliDaemon } from '../../support/signal-cli.js';
import { tempHome, type TempHome } from '../../support/temp-home.js';

interface Context {
  home: TempHome;
}

const setup = suite<Context>('onboard flags and doctor check of the Signal channel');

setup.before.each((context) => {
  context.home = tempHome();
  mkdirSync(context.home.home, { recursive: true });
});

setup.after.each((context) => context.home.remove());

setup('onboard flags add a Signal channel with its account and daemon address', async ({ home }) => {
  const flags = ['--signal-account', '+15550001000', '--signal-daemon', '127.0.0.1:7600'];
  const result = await runCliAsync(['onboard', '--no-test', '--json', ...flags], home.env);
  assert.is(result.code, 0, result.stdout + result.stderr);
  const config = JSON.parse(readFileSync(join(home.home, 'config.json'), 'utf8')) as { channel_list: unknown };
  assert.equal(config.channel_list, {
    signal: {
      enabled: true,
      type: 'signal',
      settings: { account: '+15550001000', daemon_address: '127.0.0.1:7600' },
    },
  });
  const alone = await runCliAsync(['onboard', '--no-test', '--signal-daemon', '127.0.0.1:7600'], home.env);
  assert.is(alone.code, 2);
  assert.ok(alone.stderr.includes('--signal-daemon needs --signal-account'), alone.stderr);
});

setup('doctor asks the daemon once: its account is ok, another account an error', async ({ home }) => {
  const daemon = await SignalCliDaemon.start();
  try {
    const entry = (account: string) => ({
      enabled: true,
      type: 'signal',
      settings: { account, daemon_address: daemon.address },
    });
    const channel_list = { signal: entry(daemon.account), signal_other: entry('+15559999999') };
    const { check: got } = await channelDoctor(home, channel_list);
    assert.equal(got('signal'), ['ok', 'signal-cli runs the account (listAccounts answered)']);
    assert.equal(got('signal_other'), ['error', `signal-cli runs no account +15559999999 (it has: ${daemon.account})`]);
  } finally {
    await daemon.close();
  }
});

setup.run();
