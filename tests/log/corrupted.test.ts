import { cpSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { validateDraft } from '../../bus/index.js';
import { EventLog } from '../../store/log/event-log.js';
import { runCliAsync as tern } from '../support/cli.js';
import { tempHome, type TempHome } from '../support/temp-home.js';

/** lmdb's page size on x86-64 Linux. */
const PAGE = 4096;
const EVENTS = 3000;
const SESSIONS = ['sess-alpha', 'sess-bravo', 'sess-charlie'];
/** Fixed width, so that one event's text never holds another's: `delta-01900`. */
const delta = (seq: number): string => `delta-${String(seq).padStart(5, '0')}`;
const HINT = 'Stop the gateway, run `tern log verify` to see what is damaged, then `tern log salvage`';

interface Context {
  home?: TempHome;
}

const test = suite<Context>('a damaged event log');

/**
 * The logs the cases damage, each written once for the file: `small` holds EVENTS events in three sessions, `large`
 * 20,000 in batches as a gateway writes them. Each case works on a copy, byte for byte (the pages and what is stale in
 * them included).
 */
const written: { small?: TempHome; large?: TempHome } = {};
test.before(async () => {
  written.small = tempHome();
  const log = EventLog.open(written.small.sessions);
  for (let seq = 1; seq <= EVENTS; seq++) {
    const session = SESSIONS[seq % 3]!;
    const turn = `t${Math.ceil(seq / 10)}`;
    const data = { kind: 'text' as const, delta: delta(seq) };
    log.append(validateDraft({ type: 'provider.chunk', agent: 'main', session, turn, data }));
  }
  await log.flushed();
  log.close();
  written.large = tempHome();
  await soundLog(written.large, 20_000);
});
test.after(() => {
  written.small?.remove();
  written.large?.remove();
});

/** A new home holding a copy of the log `from` wrote. */
function homeWith(from: TempHome): TempHome {
  const home = tempHome();
  rmSync(home.sessions, { recursive: true, force: true });
  cpSync(from.sessions, home.sessions, { recursive: true });
  return home;
}

test.before.each((context) => {
  context.home = homeWith(written.small!);
});

test.after.each(({ home }) => home?.remove());

const dataFile = (home: TempHome): string => join(home.sessions, 'data.mdb');

/** The page of the file whose bytes hold `needle` (and not `without`), found by reading bytes, not through lmdb. */
function pageHolding(file: Buffer, needle: string, without?: string): number {
  for (let page = 2; page * PAGE < file.length; page++) {
    const bytes = file.subarray(page * PAGE, (page + 1) * PAGE);
    if (bytes.includes(needle) && (without === undefined || !bytes.includes(without))) return page;
  }
  throw new Error(`no page holds ${needle}`);
}

/**
 * The seqs whose event text lies in a page's data: lmdb fills a page from its end down to `mp_upper` (bytes 22–23 of
 * its 24-byte header, counted from the header's end); below is free space, with stale bytes of earlier writes.
 */
function seqsIn(page: Buffer): number[] {
  const data = page.subarray(24 + page.readUInt16LE(22)).toString('latin1');
  return [...data.matchAll(/delta-(\d{5})/g)].map((m) => Number(m[1]));
}

/** The seqs whose event text lies in the data of a leaf page (kind 0x02, bytes 18–19) of the file, at any place. */
function seqsInLeaves(file: Buffer): Set<number> {
  const seqs = new Set<number>();
  for (let page = 2; page * PAGE < file.length; page++) {
    const bytes = file.subarray(page * PAGE, (page + 1) * PAGE);
    if (bytes.readUInt16LE(18) === 0x02) for (const seq of seqsIn(bytes)) seqs.add(seq);
  }
  return seqs;
}

/** Zeroes one page of the log's file, as a failing disk or a stray write does; returns what it held. */
function zeroPage(home: TempHome, page: number): Buffer {
  const file = readFileSync(dataFile(home));
  const held = Buffer.from(file.subarray(page * PAGE, (page + 1) * PAGE));
  file.fill(0, page * PAGE, (page + 1) * PAGE);
  writeFileSync(dataFile(home), file);
  return held;
}

const unique = (seqs: number[]): number[] => [...new Set(seqs)].sort((a, b) => a - b);
const span = (seqs: number[]): string => `${seqs[0]}–${seqs.at(-1)}`;

/** A sound log of `count` events with sessions and turns, in batches as a gateway writes them. */
async function soundLog(home: TempHome, count: number): Promise<void> {
  const log = EventLog.open(home.sessions);
  for (let seq = 1; seq <= count; seq++) {
    const data = { kind: 'text' as const, delta: `${delta(seq)} of a reply` };
    log.append(validateDraft({ type: 'provider.chunk', session: SESSIONS[seq % 3]!, turn: `t${seq >> 4}`, data }));
    if (seq % 5000 === 0) await log.committed();
  }
  await log.flushed();
  log.close();
}

test('a sound log of 20,000 events, its pages full to the byte, verifies clean and opens', async () => {
  const home = homeWith(written.large!);
  try {
    const verify = await tern(['log', 'verify'], home.env);
    const report = verify.stdout.split('\n').slice(1).join('\n');
    assert.is(report, 'events     20000 committed, 20000 readable\nok         no problem found\n');
    assert.is(verify.code, 0);
    const last = await tern(['log', '--json', '--limit', '1'], home.env);
    assert.is(last.code, 0, last.stderr);
    assert.is((JSON.parse(last.stdout) as { seq: number }).seq, 20_000);
  } finally {
    home.remove();
  }
});

test('with every branch page zeroed, salvage finds each event on its leaf page: none lost', async () => {
  const home = homeWith(written.large!);
  try {
    const file = readFileSync(dataFile(home));
    let zeroed = 0;
    // lmdb's page kind (bytes 18–19 of the header): 0x01 a branch, 0x02 a leaf.
    for (let page = 2; page * PAGE < file.length; page++) {
      if (file.readUInt16LE(page * PAGE + 18) !== 0x01) continue;
      file.fill(0, page * PAGE, (page + 1) * PAGE);
      zeroed++;
    }
    writeFileSync(dataFile(home), file);
    assert.ok(zeroed >= 2, `${zeroed} branch pages`);
    const verify = await tern(['log', 'verify', '--json'], home.env);
    assert.is(verify.code, 1);
    const found = JSON.parse(verify.stdout) as { committed: number; readable: number };
    assert.equal([found.committed, found.readable], [20_000, 0]);

    const salvaged = await tern(['log', 'salvage', '--json'], home.env);
    assert.is(salvaged.code, 0, salvaged.stderr);
    const result = JSON.parse(salvaged.stdout) as { saved: number; lost: number };
    assert.equal([result.saved, result.lost], [20_000, 0]);
    assert.is((await tern(['log', 'verify'], home.env)).code, 0);
    const log = EventLog.open(home.sessions, { readOnly: true });
    try {
      const events = log.read({ limit: Infinity });
      assert.is(events.length, 20_000);
      assert.ok(events.every((e, i) => e.seq === i + 1 && e.type === 'provider.chunk' && e.data.kind === 'text'));
      assert.ok(events.every((e) => e.type === 'provider.chunk' && e.data.delta === `${delta(e.seq)} of a reply`));
      assert.is(log.read({ session: 'sess-bravo', limit: Infinity }).length, 6667);
    } finally {
      log.close();
    }
  } finally {
    home.remove();
  }
});

test('verify and salvage where no log is yet say so, and what to do', async () => {
  const home = tempHome();
  try {
    for (const action of ['verify', 'salvage']) {
      const result = await tern(['log', action], home.env);
      assert.is(result.code, 1);
      assert.is(
        result.stderr,
        `tern: there is no event log here (no event log in ${home.sessions}). ` +
          'Start the gateway once, or check AGENT_HOME and agents.defaults.workspace.\n',
      );
    }
  } finally {
    home.remove();
  }
});

test('reading across a damaged page says the log is damaged and what to do; verify lists it', async ({ home }) => {
  const page = pageHolding(readFileSync(dataFile(home!)), delta(1900));
  const lost = unique(seqsIn(zeroPage(home!, page)));
  assert.ok(lost.length > 10 && lost.includes(1900), `page ${page} held ${lost.join(',')}`);
  assert.equal(
    lost,
    Array.from({ length: lost.length }, (_, i) => lost[0]! + i),
    'one leaf holds consecutive seqs',
  );

  const read = await tern(['log', '--limit', '5000'], home!.env);
  assert.is(read.code, 1);
  assert.is(
    read.stderr,
    `tern: the event log is damaged (MDB_CORRUPTED: Located page was wrong type). ${HINT}: ` +
      'it copies every readable event into a new log and keeps the damaged one aside.\n',
  );

  const text = await tern(['log', 'verify'], home!.env);
  assert.is(text.code, 1);
  assert.is(
    text.stdout,
    `log        ${dataFile(home!)} (${readFileSync(dataFile(home!)).length} bytes)\n` +
      `events     ${EVENTS} committed, ${EVENTS - lost.length} readable\n` +
      `problem    the events table: page ${page} holds something else (its header names another page)\n` +
      `problem    ${lost.length} of ${EVENTS} events cannot be read (seq ${span(lost)})\n`,
  );
  const said = 'tern: the event log is damaged (2 problems found). Stop the gateway and run `tern log salvage`';
  assert.match(text.stderr, said);

  const json = await tern(['log', 'verify', '--json'], home!.env);
  assert.is(json.code, 1);
  type Verified = { ok: boolean; committed: number; readable: number; problems: string[]; error: { code: string } };
  const body = JSON.parse(json.stdout) as Verified;
  assert.equal(
    [body.ok, body.committed, body.readable, body.problems.length, body.error.code],
    [false, EVENTS, EVENTS - lost.length, 2, 'log_corrupted'],
  );
});

test('salvage keeps every readable event at its seq, marks each lost one, keeps the damaged file', async ({ home }) => {
  const page = pageHolding(readFileSync(dataFile(home!)), delta(1900));
  const onPage = unique(seqsIn(zeroPage(home!, page)));
  const damaged = readFileSync(dataFile(home!));
  // What is still on a leaf page of the file (older copies of a page included) is readable; the rest is lost.
  const readable = seqsInLeaves(damaged);
  const lost = onPage.filter((seq) => !readable.has(seq));
  assert.ok(lost.length > 10, `lost ${lost.join(',')}`);

  const salvaged = await tern(['log', 'salvage', '--json'], home!.env);
  assert.is(salvaged.code, 0, salvaged.stderr);
  type Salvaged = { ok: boolean; saved: number; lost: number; lost_seqs: string; kept: string };
  const result = JSON.parse(salvaged.stdout) as Salvaged;
  assert.equal(
    [result.ok, result.saved, result.lost, result.lost_seqs],
    [true, EVENTS - lost.length, lost.length, span(lost)],
  );
  assert.match(result.kept, new RegExp(`^${home!.sessions}/damaged-\\d{4}-`));
  assert.ok(readFileSync(join(result.kept, 'data.mdb')).equals(damaged), 'the damaged file is kept as it was');

  const verify = await tern(['log', 'verify'], home!.env);
  assert.is(verify.code, 0, verify.stdout + verify.stderr);
  assert.match(verify.stdout, `events     ${EVENTS} committed, ${EVENTS} readable\nok         no problem found\n`);

  const marks = await tern(['log', '--json', '--type', 'log.lost', '--limit', '5000'], home!.env);
  const lines = marks.stdout.trim().split('\n');
  const marked = lines.map((line) => JSON.parse(line) as { seq: number; data: { reason: string } });
  assert.equal(
    marked.map((e) => e.seq),
    lost,
  );
  assert.match(marked[0]!.data.reason, 'the log was damaged; `tern log salvage` could not read this event back');

  const log = EventLog.open(home!.sessions);
  try {
    const kept = log.read({ type: 'provider.chunk' });
    const all = Array.from({ length: EVENTS }, (_, i) => i + 1);
    assert.equal(
      kept.map((e) => e.seq),
      all.filter((seq) => !lost.includes(seq)),
    );
    const intact = (e: (typeof kept)[number]): boolean =>
      e.type === 'provider.chunk' && e.data.kind === 'text' && e.data.delta === delta(e.seq);
    assert.ok(kept.every(intact));
    // The indexes are rebuilt from the events saved.
    const alpha = all.filter((seq) => seq % 3 === 0 && !lost.includes(seq));
    assert.equal(
      log.read({ session: 'sess-alpha' }).map((e) => e.seq),
      alpha,
    );
    const turn190 = all.filter((seq) => seq > 1890 && seq <= 1900 && !lost.includes(seq));
    assert.equal(
      log.read({ turn: 't190' }).map((e) => e.seq),
      turn190,
    );
    // The salvaged log goes on where the old one ended.
    const after = validateDraft({ type: 'provider.chunk', session: 'sess-alpha', data: { kind: 'text', delta: 'x' } });
    const next = log.append(after);
    assert.is(next.seq, EVENTS + 1);
    await log.committed();
  } finally {
    log.close();
  }
  assert.equal(
    readdirSync(home!.sessions).filter((name) => name.startsWith('.salvage')),
    [],
  );
});

test('a write meeting a damaged index page fails as damaged with the way out; what waits is kept', async ({ home }) => {
  // The session index's one leaf: it names the sessions but holds no event text, nor the type the table of names
  // (events name their session by number) and the type index hold.
  const page = pageHolding(readFileSync(dataFile(home!)), 'sess-alpha', 'provider.chunk');
  zeroPage(home!, page);
  const log = EventLog.open(home!.sessions);
  try {
    log.append(validateDraft({ type: 'provider.chunk', session: 'sess-alpha', data: { kind: 'text', delta: 'new' } }));
    const error = await log.committed({ failFast: true }).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    assert.is((error as { code?: string } | undefined)?.code, 'log_failing');
    const health = log.health();
    assert.is(health.state, 'failing');
    if (health.state !== 'failing') return;
    assert.equal([health.code, health.waiting], ['damaged', 1]);
    assert.is(
      health.reason,
      `the event log in ${home!.sessions} is damaged ` +
        `(MDB_BAD_TXN: Transaction must abort, has a child, or is invalid). ${HINT}: ` +
        'it copies every readable event into a new log and keeps the damaged one aside.',
    );
  } finally {
    log.close();
  }
});

test('a log whose newest page is damaged is refused at open, with the way out; salvage reads on', async ({ home }) => {
  const page = pageHolding(readFileSync(dataFile(home!)), delta(EVENTS));
  const lost = unique(seqsIn(zeroPage(home!, page)));
  const status = await tern(['log', '--limit', '3'], home!.env);
  assert.is(status.code, 1);
  assert.is(
    status.stderr,
    `tern: the event log is damaged (page ${page} holds something else (its header names another page), ` +
      `in ${dataFile(home!)}). ` +
      `${HINT}: it copies every readable event into a new log and keeps the damaged one aside.\n`,
  );
  const salvaged = await tern(['log', 'salvage'], home!.env);
  assert.is(salvaged.code, 0, salvaged.stderr);
  const lines = salvaged.stdout.split('\n');
  assert.is(lines[0], `saved      ${EVENTS - lost.length} events into a new log, each at its own seq`);
  assert.is(lines[1], `lost       ${lost.length} events (seq ${span(lost)}), each a log.lost event in its place`);
  assert.ok(existsSync(dataFile(home!)));
  const tail = await tern(['log', '--json', '--limit', '1'], home!.env);
  const last = JSON.parse(tail.stdout) as { seq: number; type: string };
  assert.equal([last.seq, last.type], [EVENTS, 'log.lost']);
});

test.run();
