// #38: a compaction cut short (kill -9) leaves its copy of the log (`.compact-*`, as large as the log) and a partial
// archive (`archive/.writing-*`): the next writer's open and `tern log compact` remove them, and `tern log --archive`
// reads only whole archives meanwhile.
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { validateDraft, type Envelope } from '../../bus/index.js';
import { EventLog } from '../../store/log/event-log.js';
import { runCliAsync } from '../support/cli.js';
import { chunk } from '../support/events.js';
import { tempHome, type TempHome } from '../support/temp-home.js';

const DAY_MS = 86_400_000;

/** A log of 20 events (10 of them 100 days old) and what a killed compaction left beside it. */
async function killedCompaction(home: TempHome): Promise<void> {
  const log = EventLog.open(home.sessions);
  const old = Date.now() - 100 * DAY_MS;
  for (let i = 0; i < 10; i++) log.append(validateDraft({ ...chunk('s1', 't_old', `old ${i}`), at: old }));
  for (let i = 0; i < 10; i++) log.append(validateDraft(chunk('s1', 't_young', `young ${i}`)));
  await log.flushed();
  log.close();
  const copy = join(home.sessions, '.compact-2026-11-28T10-00-00-000Z');
  mkdirSync(copy);
  writeFileSync(join(copy, 'data.mdb'), Buffer.alloc(64 * 1024, 1));
  writeFileSync(join(copy, 'lock.mdb'), Buffer.alloc(8 * 1024));
  mkdirSync(join(home.sessions, 'archive'));
  // Cut short: the first half of a gzip stream.
  const line = `${JSON.stringify({ seq: 1, at: old, type: 'provider.chunk', data: { kind: 'text', delta: 'x' } })}\n`;
  const gz = gzipSync(line.repeat(100));
  writeFileSync(join(home.sessions, 'archive', '.writing-2026-11-28T10-00-00-000Z.jsonl.gz'), gz.subarray(0, 40));
}

const leftovers = (home: TempHome): string[] => [
  ...readdirSync(home.sessions).filter((name) => name.startsWith('.compact-')),
  ...readdirSync(join(home.sessions, 'archive')).filter((name) => name.startsWith('.')),
];

test('tern log --archive reads whole archives only; a writer opening the log removes what a kill left', async () => {
  const home = tempHome();
  try {
    await killedCompaction(home);
    const shown = await runCliAsync(['log', '--archive', '--json'], home.env);
    assert.equal({ code: shown.code, stdout: shown.stdout }, { code: 0, stdout: '' }, shown.stderr);
    assert.equal(leftovers(home).length, 2);
    const log = EventLog.open(home.sessions);
    try {
      assert.equal(leftovers(home), []);
      assert.equal(
        log.read().map((e) => e.seq),
        Array.from({ length: 20 }, (_, i) => i + 1),
      );
    } finally {
      log.close();
    }
  } finally {
    home.remove();
  }
});

test('tern log compact removes what a killed compaction left and archives as usual', async () => {
  const home = tempHome();
  try {
    await killedCompaction(home);
    const compacted = await runCliAsync(['log', 'compact', '--json'], home.env);
    assert.is(compacted.code, 0, compacted.stderr);
    assert.equal(leftovers(home), []);
    assert.equal(readdirSync(join(home.sessions, 'archive')), ['1-10.jsonl.gz']);
    const archived = await runCliAsync(['log', '--archive', '--json'], home.env);
    const events = archived.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Envelope);
    assert.equal(
      events.map((e) => e.seq),
      Array.from({ length: 10 }, (_, i) => i + 1),
    );
  } finally {
    home.remove();
  }
});

test.run();
