// `tern onboard` flags and the `tern doctor` check of the IRC channel, against the loopback IRC server.
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parse as parseYaml } from 'yaml';
import { runCliAsync } from '../../support/cli.js';
import { channelDoctor } from '../doctor-checks.js';
import { IrcServer } from '../../support/irc-server.js';
import { tempHome, type TempHome } from '../../support/temp-home.js';

interface Context {
  home: TempHome;
}

const setup = suite<Context>('onboard flags and doctor check of the IRC channel');

setup.before.each((context) => {
  context.home = tempHome();
  mkdirSync(context.home.home, { recursive: true });
});

setup.after.each((context) => context.home.remove());

const read = (home: TempHome, file: string): string => readFileSync(join(home.home, file), 'utf8');

setup(
  'onboard flags add an IRC channel: server and nick in config.json, the password in .security.yml',
  async ({ home }) => {
    const flags = ['--irc-server', 'irc.libera.chat:6697', '--irc-nick', 'mybot', '--irc-channels', '#a, #b'];
    const result = await runCliAsync(['onboard', '--no-test', '--json', ...flags, '--irc-password', 'pw-1'], home.env);
    assert.is(result.code, 0, result.stdout + result.stderr);
    const config = JSON.parse(read(home, 'config.json')) as { channel_list: unknown };
    assert.equal(config.channel_list, {
      irc: {
        enabled: true,
        type: 'irc',
        settings: { server: 'irc.libera.chat:6697', nick: 'mybot', tls: true, channels: ['#a', '#b'] },
      },
    });
    assert.equal(parseYaml(read(home, '.security.yml')).channel_list, { irc: { password: 'pw-1' } });
    assert.not.ok(read(home, 'config.json').includes('pw-1'), 'no secret in config.json');
  },
);

setup('a server without a nick is a usage error, and so is a password without both', async ({ home }) => {
  const cases: Array<[string[], string]> = [
    [['--irc-server', 'irc.example.org'], 'IRC needs both --irc-server and --irc-nick'],
    [['--irc-password', 'x'], '--irc-password needs --irc-server and --irc-nick'],
  ];
  for (const [flags, message] of cases) {
    const result = await runCliAsync(['onboard', '--no-test', ...flags], home.env);
    assert.is(result.code, 2, `${flags.join(' ')}: ${result.stderr}`);
    assert.ok(result.stderr.includes(message), result.stderr);
  }
});

setup('doctor logs in once: an accepted password is ok, a refused one an error', async ({ home }) => {
  const irc = await IrcServer.start();
  try {
    const entry = (password: string) => ({
      enabled: true,
      type: 'irc',
      settings: { server: irc.address, tls: false, nick: 'ternbot', password },
    });
    const channel_list = { irc: entry(irc.password), irc_bad: entry('wrong') };
    const { stdout, check: got } = await channelDoctor(home, channel_list);
    assert.equal(got('irc'), ['ok', 'connected and logged in (the server welcomed the bot)']);
    assert.equal(got('irc_bad'), ['error', 'the server refused PASS']);
    assert.is(irc.connections(), 2);
    assert.not.ok(stdout.includes(irc.password), 'no secret shown');
  } finally {
    await irc.close();
  }
});

setup.run();
