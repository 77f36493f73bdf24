import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { validateDraft } from '../../bus/index.js';
import { EventLog } from '../../store/log/event-log.js';
import { chunk } from '../support/events.js';
import { tempHome, type TempHome } from '../support/temp-home.js';

const REMAP_AFTER = 256 * 1024;
const DELTA = 'x'.repeat(400);

/** KB of the log's data file resident in this process's memory map (Linux). */
function residentKb(file: string): number {
  let inLog = false;
  let kb = 0;
  for (const line of readFileSync('/proc/self/smaps', 'utf8').split('\n')) {
    if (/^[0-9a-f]+-[0-9a-f]+ /.test(line)) inLog = line.endsWith(file);
    else if (inLog && line.startsWith('Rss:')) kb += Number(line.split(/\s+/)[1]);
  }
  return kb;
}

/** Batches of 20 events, one per turn of the event loop, numbered from `first`, alternating two sessions. */
async function writeBatches(log: EventLog, first: number, batches: number): Promise<void> {
  for (let b = first; b < first + batches; b++) {
    for (let i = 0; i < 20; i++) log.append(validateDraft(chunk(`s${b % 2}`, `t${b}`, `${b}.${i} ${DELTA}`)));
    await new Promise((resolve) => setImmediate(resolve));
  }
}

const test = suite<{ home: TempHome; log: EventLog }>('event log mapped afresh as it grows');

test.before.each((ctx) => {
  ctx.home = tempHome();
  ctx.log = EventLog.open(ctx.home.sessions, { remapAfterBytes: REMAP_AFTER });
});
test.after.each((ctx) => {
  ctx.log.close();
  ctx.home.remove();
});

test('writes and reads across many remaps lose nothing and keep seq gapless', async ({ log }) => {
  const seen: number[] = [];
  for (let round = 0; round < 10; round++) {
    await writeBatches(log, round * 50, 50);
    // Reads between the writes meet an open environment whatever the remap is doing. They see what is committed:
    // on a slow disk the first batches may not be yet (0 then).
    seen.push(log.read({ session: 's0', order: 'desc', limit: 1 })[0]?.seq ?? 0);
  }
  await log.committed();
  const events = log.read();
  assert.is(events.length, 10 * 50 * 20);
  assert.equal(
    events.map((e) => e.seq),
    Array.from({ length: 10_000 }, (_, i) => i + 1),
  );
  const last = events.at(-1)!;
  assert.is(last.type === 'provider.chunk' ? last.data.delta : last.type, `499.19 ${DELTA}`);
  assert.is(log.read({ turn: 't250' }).length, 20);
  assert.is(log.read({ session: 's1' }).length, 5000);
  assert.is(seen.length, 10);
  assert.ok(
    seen.every((seq, i) => seq <= 10_000 && seq >= (seen[i - 1] ?? 0)),
    `reads never went back: ${seen.join(', ')}`,
  );
  assert.is(log.lastCommittedSeq(), 10_000);
});

test('the log file is resident in the process only about as far as it grew since the last remap', async ({
  home,
  log,
}) => {
  if (!existsSync('/proc/self/smaps')) return;
  await writeBatches(log, 0, 1000);
  await log.flushed();
  const file = join(home.sessions, 'data.mdb');
  const fileKb = statSync(file).size / 1024;
  assert.ok(fileKb > 6 * 1024, `the log grew to ${fileKb} KB`);
  // Without remapping every page written is read back through the map once (copy-on-write of the B-tree's edge):
  // 97% of the file was resident. The bound leaves room for a remap still waiting for its sync.
  assert.ok(residentKb(file) < fileKb / 3, `${residentKb(file)} KB of ${fileKb} KB resident`);
});

test('a log read at random places stays resident only up to its bound, before the file has grown much', async () => {
  if (!existsSync('/proc/self/statm')) return;
  const home = tempHome();
  // The default bounds: 16 MiB of growth, 8 MiB resident.
  const log = EventLog.open(home.sessions);
  try {
    const file = join(home.sessions, 'data.mdb');
    let peak = 0;
    for (let round = 0; round < 18; round++) {
      // Reads at random places, as a turn's lookups of its blobs and its session's history: Linux maps 64 KiB around
      // each page read. The writer looks at what is resident after its batches.
      for (let i = 0; i < 30; i++) log.get(1 + Math.floor(Math.random() * log.lastCommittedSeq()));
      await writeBatches(log, round * 60, 60);
      peak = Math.max(peak, residentKb(file));
    }
    await log.flushed();
    const fileKb = statSync(file).size / 1024;
    assert.ok(fileKb > 12 * 1024 && fileKb < 16 * 1024, `the log grew to ${fileKb} KB, short of a remap for growth`);
    // Without the resident bound the whole file was, and the maps lmdb leaves behind as it grows its map: 32,000 KB.
    // The bound leaves room for a remap still waiting for its sync and for a round's reads. The writer looks every
    // 256 events, whatever the machine's speed: looking every 200 ms instead, a fast machine peaked at 11.9 MB.
    assert.ok(peak < 10 * 1024, `at most ${peak} KB of ${fileKb} KB resident`);
    assert.is(log.read({ session: 's1' }).length, 10_800);
  } finally {
    log.close();
    home.remove();
  }
});

test('appends held by a remap go out with a close, and a reader sees them all', async ({ home, log }) => {
  // One batch past the bound: its commit starts a remap, which first waits for the sync.
  for (let i = 0; i < 700; i++) log.append(validateDraft(chunk('s0', 'big', `${i} ${DELTA}`)));
  await log.committed();
  for (let i = 0; i < 30; i++) log.append(validateDraft(chunk('s9', 'late', `late ${i}`)));
  log.close();
  await log.committed();
  const reader = EventLog.open(home.sessions, { readOnly: true });
  try {
    assert.is(reader.read().length, 730);
    assert.equal(
      reader.read({ turn: 'late' }).map((e) => (e.type === 'provider.chunk' ? e.data.delta : '')),
      Array.from({ length: 30 }, (_, i) => `late ${i}`),
    );
  } finally {
    reader.close();
  }
});

test.run();
