// `tern onboard` flags and `tern doctor`'s check of a Mattermost channel (one `users/me` call against the loopback
// server).
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parse as parseYaml } from 'yaml';
import { runCliAsync } from '../../support/cli.js';
import { channelDoctor } from '../doctor-checks.js';
import { MattermostServer } from '../../support/mattermost-server.js';
import { tempHome } from '../../support/temp-home.js';

test('onboard flags add a Mattermost channel: the server in config.json, the token in .security.yml', async () => {
  const home = tempHome();
  mkdirSync(home.home, { recursive: true });
  try {
    const flags = ['--mattermost-url', 'https://chat.example.com', '--mattermost-token', 'mm-token-1'];
    const result = await runCliAsync(['onboard', '--no-test', '--json', ...flags], home.env);
    assert.is(result.code, 0, result.stdout + result.stderr);
    const read = (file: string): string => readFileSync(join(home.home, file), 'utf8');
    assert.equal((JSON.parse(read('config.json')) as { channel_list: unknown }).channel_list, {
      mattermost: { enabled: true, type: 'mattermost', settings: { server_url: 'https://chat.example.com' } },
    });
    assert.equal(parseYaml(read('.security.yml')).channel_list, { mattermost: { token: 'mm-token-1' } });
    const alone = await runCliAsync(['onboard', '--no-test', '--mattermost-url', 'https://chat.example.com'], home.env);
    assert.equal(
      [alone.code, alone.stderr.includes('Mattermost needs both --mattermost-url and --mattermost-token')],
      [2, true],
      alone.stderr,
    );
  } finally {
    home.remove();
  }
});

test('doctor calls users/me: the bot token is ok, a wrong one an error', async () => {
  const home = tempHome();
  mkdirSync(home.home, { recursive: true });
  const mm = await MattermostServer.start();
  try {
    const entry = (token: string) => ({ enabled: true, type: 'mattermost', settings: { server_url: mm.url, token } });
    const channel_list = { mattermost: entry(mm.token), mattermost_bad: entry('wrong') };
    const { stdout, check: got } = await channelDoctor(home, channel_list);
    assert.equal(got('mattermost'), ['ok', 'reachable as @ternbot']);
    assert.equal(got('mattermost_bad'), ['error', 'users/me was refused (401)']);
    assert.not.ok(stdout.includes(mm.token), 'no secret shown');
  } finally {
    await mm.close();
    home.remove();
  }
});

test.run();
