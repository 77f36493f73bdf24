// `tern onboard` with the Matrix flags writes the entry (token in .security.yml) and tries it with whoami.
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runCliAsync } from '../../support/cli.js';
import { MatrixHomeserver } from '../../support/matrix-homeserver.js';
import { tempHome } from '../../support/temp-home.js';

test(
  'tern onboard --matrix-… adds an enabled Matrix entry, ' + 'keeps the token out of config.json and checks it',
  async () => {
    const hs = await MatrixHomeserver.start();
    const home = tempHome();
    try {
      mkdirSync(home.home, { recursive: true, mode: 0o700 });
      const flags = [
        '--matrix-homeserver',
        hs.url,
        '--matrix-user-id',
        '@tern:loopback.test',
        '--matrix-token',
        hs.accessToken,
      ];
      const result = await runCliAsync(['onboard', ...flags, '--owner', '@me:loopback.test'], home.env);
      assert.is(result.code, 0, result.stderr);
      const config = JSON.parse(readFileSync(join(home.home, 'config.json'), 'utf8')) as {
        channel_list: Record<string, unknown>;
      };
      assert.equal(config.channel_list.matrix, {
        enabled: true,
        type: 'matrix',
        settings: { homeserver: hs.url, user_id: '@tern:loopback.test', allow_from: ['@me:loopback.test'] },
      });
      assert.ok(
        readFileSync(join(home.home, '.security.yml'), 'utf8').includes(hs.accessToken),
        'the token is in .security.yml',
      );
      assert.ok(result.stdout.includes('reachable as @tern:loopback.test'), result.stdout);
      assert.not.ok(result.stdout.includes(hs.accessToken));
      const partial = await runCliAsync(['onboard', '--matrix-homeserver', hs.url], home.env);
      assert.is(partial.code, 2);
      assert.ok(
        partial.stderr.includes('Matrix needs --matrix-homeserver, --matrix-user-id and --matrix-token'),
        partial.stderr,
      );
    } finally {
      home.remove();
      await hs.close();
    }
  },
);

test.run();
