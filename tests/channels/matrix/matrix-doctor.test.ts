// `tern doctor` makes one authenticated call (whoami) for a Matrix entry.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runCliAsync } from '../../support/cli.js';
import { MatrixHomeserver } from '../../support/matrix-homeserver.js';
import { tempHome } from '../../support/temp-home.js';

test('tern doctor checks a Matrix token with whoami: a good one is reachable, a bad one refused', async () => {
  const hs = await MatrixHomeserver.start();
  const home = tempHome();
  try {
    mkdirSync(home.home, { recursive: true, mode: 0o700 });
    const settings = hs.settings();
    writeFileSync(
      join(home.home, 'config.json'),
      JSON.stringify({
        version: 2,
        channel_list: {
          matrix: { enabled: true, type: 'matrix', settings },
          stale: { enabled: true, type: 'matrix', settings: { ...settings, access_token: 'syt_revoked' } },
        },
      }),
      { mode: 0o600 },
    );
    const result = await runCliAsync(['doctor', '--json'], home.env);
    const checks = new Map(
      (JSON.parse(result.stdout) as { checks: Array<{ name: string; status: string; message: string }> }).checks.map(
        (c) => [c.name, c],
      ),
    );
    assert.equal(
      [checks.get('channel matrix')?.status, checks.get('channel matrix')?.message],
      ['ok', 'reachable as @tern:loopback.test'],
    );
    assert.equal(
      [checks.get('channel stale')?.status, checks.get('channel stale')?.message],
      ['error', 'the token was refused (401 M_UNKNOWN_TOKEN)'],
    );
    assert.not.ok(result.stdout.includes(hs.accessToken));
  } finally {
    home.remove();
    await hs.close();
  }
});

test.run();
