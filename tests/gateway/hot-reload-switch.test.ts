// gateway.hot_reload: false (the peer runtime's default) leaves config edits for the next start; true applies them.
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { logLines, startClockedGateway } from '../support/clocked-gateway.js';
import { freePort } from '../support/telegram-emulator.js';

const reloads = (events: Array<{ type: string }>): number => events.filter((e) => e.type === 'config.reloaded').length;
const NOTE = 'INFO config edits apply at restart (gateway.hot_reload is false)';

for (const hotReload of [false, true]) {
  const outcome = hotReload ? 'applied at the next check' : 'left for a restart';
  test(`gateway.hot_reload ${hotReload}: an edit is ${outcome}`, async () => {
    const g = await startClockedGateway({
      gateway: { port: await freePort(), log_level: 'info', hot_reload: hotReload },
    });
    try {
      g.config.heartbeat = { interval: 45 };
      g.rewrite();
      // Ten config-file checks' worth of time, on the gateway's own clock.
      g.clock.advance(20_000);
      assert.is(reloads(g.events), hotReload ? 1 : 0);
      assert.is(logLines(join(g.home.home, 'logs', 'gateway.log')).includes(NOTE), !hotReload);
    } finally {
      await g.close();
    }
  });
}

test.run();
