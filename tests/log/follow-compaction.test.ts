// #38: `tern log --follow` goes on across a compaction of the log it reads (the gateway's scheduled one): after the
// swap it shows the compaction's record and every event appended after it.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { validateDraft, type Envelope } from '../../bus/index.js';
import { retentionPlan } from '../../store/log/compact.js';
import { EventLog } from '../../store/log/event-log.js';
import { compactLive } from '../../store/log/live-compact.js';
import { lineReader, startCli } from '../support/cli.js';
import { chunk } from '../support/events.js';
import { tempHome } from '../support/temp-home.js';

test('tern log --follow shows what is appended after a live compaction swapped the files', async () => {
  const home = tempHome();
  const log = EventLog.open(home.sessions);
  const follower = startCli(['log', '--follow', '--json', '--type', 'provider.chunk,log.compacted'], home.env);
  try {
    const lines = lineReader(follower, 30_000);
    for (let i = 0; i < 3; i++) log.append(validateDraft(chunk('s1', 't1', `before ${i}`)));
    await log.flushed();
    const before = (await lines.next(3)).map((line) => JSON.parse(line) as Envelope);
    await compactLive(log, retentionPlan({ max_age_days: 90 }, new Date()), new Date());
    for (let i = 0; i < 2; i++) log.append(validateDraft(chunk('s1', 't2', `after ${i}`)));
    await log.flushed();
    const after = (await lines.next(3)).map((line) => JSON.parse(line) as Envelope);
    assert.equal(
      [...before, ...after].map((e) => [e.seq, e.type, e.turn ?? null]),
      [
        [1, 'provider.chunk', 't1'],
        [2, 'provider.chunk', 't1'],
        [3, 'provider.chunk', 't1'],
        [4, 'log.compacted', null],
        [5, 'provider.chunk', 't2'],
        [6, 'provider.chunk', 't2'],
      ],
    );
  } finally {
    follower.kill('SIGKILL');
    log.close();
    home.remove();
  }
});

test.run();
