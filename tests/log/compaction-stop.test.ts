// #38: the gateway's scheduled compaction against its stops and restarts. A stop ends a compaction under way before
// the log closes (the copy and the half-written archive go, the log stays whole); the schedule counts from the last
// compaction recorded in the log, so a gateway restarted more often than `compact_every_hours` still compacts.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { validateDraft } from '../../bus/index.js';
import { EventLog } from '../../store/log/event-log.js';
import { logLines, startClockedGateway } from '../support/clocked-gateway.js';
import { chunk } from '../support/events.js';
import { eventually } from '../support/eventually.js';
import type { TempHome } from '../support/temp-home.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** Old events: enough that the copy takes many turns of the event loop. */
const OLD = 20_000;

const partialArchives = (dir: string): string[] =>
  existsSync(join(dir, 'archive')) ? readdirSync(join(dir, 'archive')).filter((name) => name.startsWith('.')) : [];
const copies = (dir: string): string[] => readdirSync(dir).filter((name) => name.startsWith('.compact-'));

async function seedOld(home: TempHome): Promise<void> {
  const log = EventLog.open(home.sessions);
  const at = Date.now() - 100 * DAY;
  for (let i = 0; i < OLD; i++) log.append(validateDraft({ ...chunk('s_old', `t${i % 50}`, `old ${i}`), at }));
  await log.flushed();
  log.close();
}

test(
  'a stop during a compaction ends it before the log closes: ' + 'no copy, no partial archive, the log whole',
  async () => {
    const g = await startClockedGateway({ log: { retention: { compact_every_hours: 1 } } }, {}, seedOld);
    const dir = g.home.sessions;
    try {
      // A turn first: a stop while the engine loads waits for it, and the copy would be done by then.
      g.say('hello');
      const done = (): number => g.events.filter((e) => e.type === 'turn.completed').length;
      assert.is(await eventually(done, 1, 20_000), 1);
      g.clock.advance(HOUR);
      // The copy is under way once the archive of the old events is being written.
      for (let i = 0; partialArchives(dir).length === 0; i++) {
        assert.ok(i < 1_000_000, 'the compaction started');
        await nextTurn();
      }
      await g.gateway.stop();
      assert.equal({ archive: partialArchives(dir), copies: copies(dir) }, { archive: [], copies: [] });
      const log = EventLog.open(dir, { readOnly: true });
      try {
        assert.is(log.read({ type: 'provider.chunk' }).length, OLD);
        assert.is(log.read({ type: 'log.compacted' }).length, 0);
      } finally {
        log.close();
      }
      assert.ok(
        logLines(join(g.home.home, 'logs', 'gateway.log')).includes(
          'INFO event log compaction stopped with the gateway; the log is as it was',
        ),
        logLines(join(g.home.home, 'logs', 'gateway.log')).join('\n'),
      );
    } finally {
      await g.close();
    }
  },
);

test('the schedule counts from the last compaction in the log, not from the start', async () => {
  // A gateway restarted each day: its last compaction was 23 hours ago.
  const lastCompacted = async (home: TempHome): Promise<void> => {
    const log = EventLog.open(home.sessions);
    const data = { archived: 0, kept: 0 };
    log.append(validateDraft({ type: 'log.compacted', data, at: Date.now() - 23 * HOUR }));
    await log.flushed();
    log.close();
  };
  const g = await startClockedGateway({ log: { retention: { compact_every_hours: 24 } } }, {}, lastCompacted);
  try {
    const recorded = (): number => g.gateway.core.log.read({ type: 'log.compacted' }).length;
    g.clock.advance(HOUR);
    assert.is(await eventually(recorded, 2, 20_000), 2, 'compacted an hour after the start');
    // The next one a full period after this one.
    assert.ok(g.clock.pending().includes(DAY), `pending: ${g.clock.pending().join(', ')}`);
  } finally {
    await g.close();
  }
});

test.run();
