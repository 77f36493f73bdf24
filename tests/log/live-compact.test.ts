// #38: the gateway compacts the log it writes while appends go on: nothing appended during the copy is lost, the old
// events go to the archive, and `log.compacted` records the sizes before and after.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { validateDraft } from '../../bus/index.js';
import { readArchive, retentionPlan } from '../../store/log/compact.js';
import { EventLog } from '../../store/log/event-log.js';
import { compactLive } from '../../store/log/live-compact.js';
import { chunk } from '../support/events.js';
import { tempHome } from '../support/temp-home.js';

const DAY_MS = 86_400_000;

test('compactLive archives old events while appends go on, and keeps every one appended meanwhile', async () => {
  const home = tempHome();
  const log = EventLog.open(home.sessions);
  try {
    const old = Date.now() - 10 * DAY_MS;
    for (let i = 0; i < 3000; i++) log.append(validateDraft({ ...chunk('s1', 't_old', `old ${i}`), at: old + i }));
    for (let i = 0; i < 50; i++) log.append(validateDraft(chunk('s1', 't_young', `young ${i}`)));
    await log.flushed();
    let appending = true;
    const during: number[] = [];
    const writer = (async () => {
      while (appending && during.length < 200) {
        during.push(log.append(validateDraft(chunk('s1', 't_during', `during ${during.length}`))).seq);
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    const result = await compactLive(log, retentionPlan({ max_age_days: 1 }, new Date()), new Date());
    appending = false;
    await writer;
    const last = log.append(validateDraft(chunk('s1', 't_after')));
    await log.flushed();
    assert.equal(result.archived, 3000);
    assert.ok(during.length > 0, 'appends went on during the compaction');
    assert.equal(
      log.read({ turn: 't_during' }).map((e) => e.seq),
      during,
    );
    assert.equal(log.read({ turn: 't_young' }).length, 50);
    assert.equal(log.read({ turn: 't_old' }).length, 0);
    assert.equal(
      log.read({ turn: 't_after' }).map((e) => e.seq),
      [last.seq],
    );
    const [compacted] = log.read({ type: 'log.compacted' }) as Array<{ data: Record<string, number> }>;
    assert.ok(compacted!.data.bytes_before! > compacted!.data.bytes_after!, JSON.stringify(compacted!.data));
    assert.equal([...readArchive(home.sessions, { turn: 't_old' })].length, 3000);
    log.close();
    const reopened = EventLog.open(home.sessions, { readOnly: true });
    assert.equal(reopened.read({ turn: 't_during' }).length, during.length);
    reopened.close();
  } finally {
    log.close();
    home.remove();
  }
});

test.run();
