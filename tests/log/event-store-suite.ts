// The contract of an event log (`EventStore`): every implementation (lmdb, memory, a JetStream stream in #27)
// runs these same tests through `eventStoreContract`.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { validateDraft, type EventDraft } from '../../bus/index.js';
import type { EventStore, LogQuery } from '../../store/log/event-store.js';
import { chunk } from '../support/events.js';

export interface StoreUnderTest {
  store: EventStore;
  /** Closes the store and opens it again on the same data; absent where the data lives only as long as the store. */
  reopen?(): EventStore | Promise<EventStore>;
  /** Closes whatever is open and removes its data. */
  dispose(): void | Promise<void>;
}

const settings = {
  model_name: 'm',
  stream: false,
  max_tool_iterations: 20,
  loop_detection: { enabled: false, repeat_threshold: 3, critical_threshold: 6, window_size: 20 },
};

export function eventStoreContract(
  name: string,
  open: () => StoreUnderTest | Promise<StoreUnderTest>,
  options: { skip?: boolean; after?: () => unknown } = {},
): void {
  const test = suite<{ under: StoreUnderTest }>(`event store contract: ${name}`);
  test.before.each(async (ctx) => {
    ctx.under = await open();
  });
  test.after.each(async (ctx) => {
    await ctx.under.dispose();
  });
  if (options.after)
    test.after(async () => {
      await options.after!();
    });

  const append = (store: EventStore, draft: EventDraft) => store.append(validateDraft(draft));

  /** 12 events: sessions a/b alternate, turns t1 (seq 1-4), t2 (5-8), none (9-12); every third is a turn.started. */
  const fill = (store: EventStore): void => {
    for (let i = 1; i <= 12; i++) {
      const session = i % 2 ? 'a' : 'b';
      const turn = i <= 4 ? 't1' : i <= 8 ? 't2' : undefined;
      if (i % 3 === 0)
        append(store, {
          type: 'turn.started',
          agent: 'main',
          session,
          turn,
          data: { message_id: `m${i}`, channel: 'cli', chat: 'c', text: 'hi', session_key: session, settings },
        });
      else append(store, chunk(session, turn, `d${i}`));
    }
  };

  test('appends are numbered from 1 without holes and stamped with a time', async ({ under: { store } }) => {
    const before = Date.now();
    const seqs = [1, 2, 3].map(() => append(store, chunk('a', 't')).seq);
    await store.flushed();
    assert.equal(seqs, [1, 2, 3]);
    assert.equal([store.lastSeq, store.lastCommittedSeq()], [3, 3]);
    const [first] = store.read({ limit: 1 });
    assert.ok(first!.at >= before && first!.at <= Date.now());
    assert.equal(first!.data, { kind: 'text', delta: 'hello' });
  });

  test('an event reads back exactly as it was stamped, keys in the same order', async ({ under: { store } }) => {
    const stamped = append(store, {
      agent: 'main',
      session: 'a',
      turn: 't',
      type: 'tool.requested',
      data: { call_id: 'c1', name: 'todo', arguments: { action: 'read' } },
    });
    await store.flushed();
    assert.equal(Object.keys(stamped), ['agent', 'session', 'turn', 'type', 'data', 'seq', 'at']);
    assert.is(JSON.stringify(store.get(stamped.seq)), JSON.stringify(stamped));
    assert.is(store.get(stamped.seq + 1), undefined);
  });

  test('append numbers a copy and leaves the draft alone; as a sequencer it numbers the draft in place', async ({
    under: { store },
  }) => {
    const draft = validateDraft(chunk('a', 't'));
    const appended = store.append(draft);
    assert.is.not(appended, draft);
    assert.equal(Object.keys(draft), ['type', 'agent', 'session', 'turn', 'data']);
    const own = validateDraft(chunk('a', 't'));
    const stamped = store.stamp(own);
    assert.is(stamped, own);
    await store.flushed();
    assert.equal(
      store.read().map((e) => [e.seq, e.type, e.session, e.turn]),
      [
        [1, 'provider.chunk', 'a', 't'],
        [2, 'provider.chunk', 'a', 't'],
      ],
    );
  });

  test('a reopened store continues numbering after its last event', async ({ under }) => {
    if (!under.reopen) return;
    fill(under.store);
    await under.store.flushed();
    const again = await under.reopen();
    assert.is(append(again, chunk('a', 't')).seq, 13);
    await again.flushed();
    assert.is(again.read().length, 13);
  });

  const queries: Array<[string, LogQuery, number[]]> = [
    ['everything, oldest first', {}, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]],
    ['newest first with a limit', { order: 'desc', limit: 3 }, [12, 11, 10]],
    ['after a seq', { after: 9 }, [10, 11, 12]],
    ['between seqs', { after: 3, before: 6 }, [4, 5]],
    ['by session', { session: 'a' }, [1, 3, 5, 7, 9, 11]],
    ['by session, newest first, limited', { session: 'b', order: 'desc', limit: 2 }, [12, 10]],
    ['by session after a seq', { session: 'a', after: 5 }, [7, 9, 11]],
    ['by session, newest first, between seqs', { session: 'a', order: 'desc', after: 3, before: 9 }, [7, 5]],
    ['by turn', { turn: 't2' }, [5, 6, 7, 8]],
    ['by turn and session', { turn: 't1', session: 'b' }, [2, 4]],
    ['by turn, newest first, before a seq', { turn: 't2', order: 'desc', before: 8 }, [7, 6, 5]],
    ['by exact type', { type: 'turn.started' }, [3, 6, 9, 12]],
    ['by exact type, newest first, limited', { type: 'turn.started', order: 'desc', limit: 1 }, [12]],
    ['by type glob', { type: 'provider.*', limit: 4 }, [1, 2, 4, 5]],
    ['by a list of types and a session', { type: 'turn.*,tool.*', session: 'b' }, [6, 12]],
    ['by a list of types, newest first', { type: 'turn.started,tool.requested', order: 'desc', limit: 2 }, [12, 9]],
    ['an unknown session', { session: 'nobody' }, []],
    ['a zero limit', { limit: 0 }, []],
  ];
  for (const [label, query, expected] of queries) {
    test(`read ${label}`, async ({ under: { store } }) => {
      fill(store);
      await store.flushed();
      assert.equal(
        store.read(query).map((e) => e.seq),
        expected,
      );
      assert.equal(
        [...store.iterate(query)].map((e) => e.seq),
        expected,
      );
    });
  }

  test('read by time keeps events at or after since and before until', async ({ under: { store } }) => {
    append(store, { ...chunk('a', 't'), at: 1000 });
    append(store, { ...chunk('a', 't'), at: 2000 });
    append(store, { ...chunk('a', 't'), at: 3000 });
    await store.flushed();
    assert.equal(
      store.read({ since: 2000 }).map((e) => e.at),
      [2000, 3000],
    );
    assert.equal(
      store.read({ until: 3000 }).map((e) => e.at),
      [1000, 2000],
    );
  });

  test('queries stay correct across many write batches', async ({ under: { store } }) => {
    for (let batch = 0; batch < 5; batch++) {
      for (let i = 0; i < 40; i++) append(store, chunk(`s${i % 4}`, `t${batch}`));
      await store.committed();
    }
    await store.flushed();
    assert.is(store.read({ session: 's1' }).length, 50);
    assert.equal(
      store.read({ session: 's1', after: 100, limit: 3 }).map((e) => e.seq),
      [102, 106, 110],
    );
    assert.equal(
      store.read({ turn: 't3' }).map((e) => e.seq),
      Array.from({ length: 40 }, (_, i) => 121 + i),
    );
    assert.equal(
      store.read({ session: 's3', order: 'desc', before: 124, limit: 2 }).map((e) => e.seq),
      [120, 116],
    );
  });

  test('sessionIds lists each session the log names once, in order, those starting with a prefix', async ({
    under: { store },
  }) => {
    for (const session of ['sk_v1_bb', 'sk_v1_aa', 'other', 'sk_v1_bb', 'sk_v1_ab']) append(store, chunk(session, 't'));
    append(store, { type: 'heartbeat.ticked', data: { outcome: 'ran' } });
    await store.flushed();
    assert.equal(store.sessionIds(), ['sk_v1_aa', 'sk_v1_ab', 'sk_v1_bb']);
    assert.equal(store.sessionIds('sk_v1_a'), ['sk_v1_aa', 'sk_v1_ab']);
    assert.equal(store.sessionIds('o'), ['other']);
  });

  test('a closed store refuses appends with log_closed', async ({ under: { store } }) => {
    append(store, chunk('a', 't'));
    await store.flushed();
    store.close();
    assert.throws(
      () => append(store, chunk('a', 't')),
      (e: unknown) => (e as { code?: string }).code === 'log_closed',
    );
  });

  if (options.skip) {
    const skipped = suite(`event store contract: ${name}`);
    skipped.skip('every contract test (nats-server is missing)', () => {});
    skipped.run();
  } else test.run();
}
