import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Bus, validateDraft, type EventDraft } from '../../bus/index.js';
import { EventLog } from '../../store/log/event-log.js';
import { LogError } from '../../store/log/errors.js';
import { chunk } from '../support/events.js';
import { tempHome, type TempHome } from '../support/temp-home.js';

const test = suite<{ home: TempHome; log: EventLog }>('event log');

test.before.each((ctx) => {
  ctx.home = tempHome();
  ctx.log = EventLog.open(ctx.home.sessions);
});
test.after.each((ctx) => {
  ctx.log.close();
  ctx.home.remove();
});

const append = (log: EventLog, draft: EventDraft) => log.append(validateDraft(draft));
const settings = { model_name: 'm', stream: false, max_tool_iterations: 20, loop_detection: { enabled: false, repeat_threshold: 3, critical_threshold: 6, window_size: 20 } };

/** 12 events: sessions a/b alternate, turns t1 (seq 1-4), t2 (5-8), none (9-12); every third is a turn.started. */
function fill(log: EventLog): void {
  for (let i = 1; i <= 12; i++) {
    const session = i % 2 ? 'a' : 'b';
    const turn = i <= 4 ? 't1' : i <= 8 ? 't2' : undefined;
    if (i % 3 === 0) {
      append(log, { type: 'turn.started', agent: 'main', session, turn, data: { message_id: `m${i}`, channel: 'cli', chat: 'c', text: 'hi', session_key: session, settings } });
    } else {
      append(log, chunk(session, turn, `d${i}`));
    }
  }
}

test('appends are numbered from 1 without holes and stamped with a time', async ({ log }) => {
  const before = Date.now();
  const seqs = [1, 2, 3].map(() => append(log, chunk('a', 't')).seq);
  await log.flushed();
  assert.equal(seqs, [1, 2, 3]);
  assert.equal(log.lastCommittedSeq(), 3);
  const [first] = log.read({ limit: 1 });
  assert.ok(first!.at >= before && first!.at <= Date.now());
  assert.equal(first!.data, { kind: 'text', delta: 'hello' });
});

test('an event reads back exactly as it was stamped, keys in the same order', async ({ log }) => {
  const stamped = append(log, { agent: 'main', session: 'a', turn: 't', type: 'tool.requested', data: { call_id: 'c1', name: 'todo', arguments: { action: 'read' } } });
  await log.flushed();
  assert.equal(Object.keys(stamped), ['agent', 'session', 'turn', 'type', 'data', 'seq', 'at']);
  assert.is(JSON.stringify(log.get(stamped.seq)), JSON.stringify(stamped));
});

test('append numbers a copy and leaves the draft alone; as the bus sequencer it numbers the bus copy in place', async ({ log }) => {
  const draft = validateDraft(chunk('a', 't'));
  const appended = log.append(draft);
  assert.is.not(appended, draft);
  assert.equal(Object.keys(draft), ['type', 'agent', 'session', 'turn', 'data']);
  const bus = new Bus(log);
  const published = bus.publish(chunk('a', 't'));
  await log.flushed();
  assert.equal([appended.seq, published.seq], [1, 2]);
  assert.equal(log.read().map((e) => [e.seq, e.type, e.session, e.turn]), [[1, 'provider.chunk', 'a', 't'], [2, 'provider.chunk', 'a', 't']]);
});

test('a reopened log continues numbering after its last event', async ({ home, log }) => {
  fill(log);
  await log.flushed();
  log.close();
  const again = EventLog.open(home.sessions);
  assert.is(append(again, chunk('a', 't')).seq, 13);
  await again.flushed();
  assert.is(again.read().length, 13);
  again.close();
});

const queries: Array<[string, Parameters<EventLog['read']>[0], number[]]> = [
  ['everything, oldest first', {}, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]],
  ['newest first with a limit', { order: 'desc', limit: 3 }, [12, 11, 10]],
  ['after a seq', { after: 9 }, [10, 11, 12]],
  ['between seqs', { after: 3, before: 6 }, [4, 5]],
  ['by session', { session: 'a' }, [1, 3, 5, 7, 9, 11]],
  ['by session, newest first, limited', { session: 'b', order: 'desc', limit: 2 }, [12, 10]],
  ['by session after a seq', { session: 'a', after: 5 }, [7, 9, 11]],
  ['by turn', { turn: 't2' }, [5, 6, 7, 8]],
  ['by turn and session', { turn: 't1', session: 'b' }, [2, 4]],
  ['by turn, newest first, before a seq', { turn: 't2', order: 'desc', before: 8 }, [7, 6, 5]],
  ['by exact type', { type: 'turn.started' }, [3, 6, 9, 12]],
  ['by type glob', { type: 'provider.*', limit: 4 }, [1, 2, 4, 5]],
  ['by a list of types and a session', { type: 'turn.*,tool.*', session: 'b' }, [6, 12]],
  ['an unknown session', { session: 'nobody' }, []],
  ['a zero limit', { limit: 0 }, []],
];
for (const [name, query, expected] of queries) {
  test(`read ${name}`, async ({ log }) => {
    fill(log);
    await log.flushed();
    assert.equal(log.read(query).map((e) => e.seq), expected);
  });
}

test('read by time keeps events at or after since and before until', async ({ log }) => {
  append(log, { ...chunk('a', 't'), at: 1000 });
  append(log, { ...chunk('a', 't'), at: 2000 });
  append(log, { ...chunk('a', 't'), at: 3000 });
  await log.flushed();
  assert.equal(log.read({ since: 2000 }).map((e) => e.at), [2000, 3000]);
  assert.equal(log.read({ until: 3000 }).map((e) => e.at), [1000, 2000]);
});

test('indexes stay correct across many write batches', async ({ log }) => {
  for (let batch = 0; batch < 5; batch++) {
    for (let i = 0; i < 40; i++) append(log, chunk(`s${i % 4}`, `t${batch}`));
    await log.committed();
  }
  await log.flushed();
  assert.is(log.read({ session: 's1' }).length, 50);
  assert.equal(log.read({ session: 's1', after: 100, limit: 3 }).map((e) => e.seq), [102, 106, 110]);
  assert.equal(log.read({ turn: 't3' }).map((e) => e.seq), Array.from({ length: 40 }, (_, i) => 121 + i));
  assert.equal(log.read({ session: 's3', order: 'desc', before: 124, limit: 2 }).map((e) => e.seq), [120, 116]);
});

test('a second writer is refused while the first is open', ({ home }) => {
  const error = (() => {
    try {
      EventLog.open(home.sessions);
    } catch (e) {
      return e;
    }
  })();
  assert.instance(error, LogError);
  assert.is((error as LogError).code, 'log_locked');
});

test('a reader opens beside the writer and sees what was committed', async ({ home, log }) => {
  fill(log);
  await log.flushed();
  const reader = EventLog.open(home.sessions, { readOnly: true });
  assert.is(reader.read().length, 12);
  assert.throws(() => reader.append(validateDraft(chunk('a', 't'))), (e: unknown) => (e as LogError).code === 'log_write_failed');
  reader.close();
});

test('opening a missing log to read fails with log_missing and creates nothing', ({ home }) => {
  try {
    EventLog.open(`${home.home}/nowhere`, { readOnly: true });
    assert.unreachable('should have thrown');
  } catch (e) {
    assert.is((e as LogError).code, 'log_missing');
  }
});
test.run();
