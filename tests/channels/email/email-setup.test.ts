// `tern onboard` flags and the `tern doctor` check of the Email channel, against the loopback IMAP and SMTP servers.
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { runCliAsync } from '../../support/cli.js';
import { channelDoctor } from '../doctor-checks.js';
import { tempHome, type TempHome } from '../../support/temp-home.js';
import { EmailContractEmulator } from './email-contract-emulator.js';

interface Context {
  home: TempHome;
}

const setup = suite<Context>('onboard flags and doctor check of the Email channel');

setup.before.each((context) => {
  context.home = tempHome();
  mkdirSync(context.home.home, { recursive: true });
});

setup.after.each((context) => context.home.remove());

setup('onboard flags add an Email channel, its password in .security.yml', async ({ home }) => {
  const flags = [
    ...['--email-address', 'bot@example.test', '--email-password', 'app-pass-77'],
    ...['--email-imap', 'imap.example.test', '--email-smtp', 'smtp.example.test:587'],
  ];
  const result = await runCliAsync(['onboard', '--no-test', '--json', ...flags], home.env);
  assert.is(result.code, 0, result.stdout + result.stderr);
  const config = JSON.parse(readFileSync(join(home.home, 'config.json'), 'utf8')) as { channel_list: unknown };
  assert.equal(config.channel_list, {
    email: {
      enabled: true,
      type: 'email',
      settings: {
        username: 'bot@example.test',
        imap_server: 'imap.example.test',
        smtp_server: 'smtp.example.test',
        smtp_port: 587,
      },
    },
  });
  assert.ok(readFileSync(join(home.home, '.security.yml'), 'utf8').includes('app-pass-77'));
  const alone = await runCliAsync(['onboard', '--no-test', '--email-address', 'bot@example.test'], home.env);
  assert.is(alone.code, 2);
  assert.ok(alone.stderr.includes('Email needs --email-address, --email-password, --email-imap, --email-smtp'));
});

setup('doctor logs in to IMAP and SMTP: the right password is ok, a wrong one an error', async ({ home }) => {
  const emulator = await EmailContractEmulator.start();
  try {
    const entry = (password: string) => ({
      enabled: true,
      type: 'email',
      settings: { ...emulator.settings(), password },
    });
    const channel_list = { email: entry(emulator.imap.password), email_wrong: entry('not-the-password') };
    const { check: got } = await channelDoctor(home, channel_list);
    assert.equal(got('email'), ['ok', 'IMAP and SMTP logins accepted']);
    assert.equal(got('email_wrong'), ['error', 'the IMAP server refused the login (Invalid credentials)']);
    assert.is(emulator.imap.selectedClients(), 0, 'no mailbox was opened');
  } finally {
    await emulator.close();
  }
});

setup.run();
