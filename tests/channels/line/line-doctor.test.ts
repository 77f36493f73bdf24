// `tern doctor`'s check of a LINE channel: one bot info call with the channel access token, against the loopback API.
import { mkdirSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { channelDoctor } from '../doctor-checks.js';
import { LineApi } from '../../support/line-api.js';
import { tempHome } from '../../support/temp-home.js';

test('doctor asks for the bot info: the channel access token is ok, a wrong one an error', async () => {
  const home = tempHome();
  mkdirSync(home.home, { recursive: true });
  const line = await LineApi.start();
  try {
    const entry = (token: string) => ({
      enabled: true,
      type: 'line',
      settings: { ...line.settings(), channel_access_token: token },
    });
    const channel_list = { line: entry(line.accessToken), line_bad: entry('wrong-token') };
    const { stdout, check: got } = await channelDoctor(home, channel_list);
    assert.equal(got('line'), ['ok', 'reachable as Contract (@contract)']);
    assert.equal(got('line_bad'), [
      'error',
      'bot info was refused (401 Authentication failed. Confirm that the access token in the authorization header ' +
        'is valid.)',
    ]);
    assert.not.ok(stdout.includes(line.accessToken), 'no secret shown');
  } finally {
    await line.close();
    home.remove();
  }
});

test.run();
