import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { describeIsolation } from '../../adapters/tools/exec/isolation.js';
import { eventually } from '../support/eventually.js';
import { startGatewayProcess } from '../support/gateway-process.js';
import { freePort } from '../support/mcp-servers.js';

const WARNING = describeIsolation({ kind: 'guard_only', reason: 'bwrap is not installed' });

test(
  'a gateway on a machine without bubblewrap says once, ' + 'at start, that exec runs under the guard alone',
  async () => {
    const gateway = await startGatewayProcess(
      { gateway: { port: await freePort() }, heartbeat: { enabled: false } },
      { PATH: '/nonexistent' },
    );
    try {
      const log = join(gateway.home.home, 'logs', 'gateway.log');
      const warnings = () =>
        readFileSync(log, 'utf8')
          .split('\n')
          .filter((line) => line.includes('exec runs without isolation'));
      assert.is(await eventually(() => warnings().length, 1), 1);
      assert.match(warnings()[0]!, `WARN ${WARNING}`);
      assert.is(await eventually(() => gateway.stderr().includes(`tern: warning: ${WARNING}\n`), true), true);
      assert.is(gateway.stderr().split(WARNING).length - 1, 1);
    } finally {
      await gateway.stop();
      gateway.home.remove();
    }
  },
);
test.run();
