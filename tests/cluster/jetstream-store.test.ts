// What the JetStream event log does beyond the shared contract: its subjects, a resent publish stored once, a second
// writer fenced off, a reader in another connection following the writer, and a server killed and restarted.
import * as assert from 'uvu/assert';
import { jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { validateDraft, type EventDraft } from '../../bus/index.js';
import { connectCluster } from '../../store/cluster/connection.js';
import { JetStreamEventStore, type JetStreamStoreOptions } from '../../store/log/jetstream-store.js';
import { follow } from '../../store/log/follow.js';
import type { EventStore } from '../../store/log/event-store.js';
import type { LogError } from '../../store/log/errors.js';
import { chunk } from '../support/events.js';
import { eventually } from '../support/eventually.js';
import { natsSuite } from '../support/nats-server.js';

const { test, suite } = natsSuite('jetstream event log');
const append = (store: EventStore, draft: EventDraft) => store.append(validateDraft(draft));

let streams = 0;
async function fresh(url: string, extra: JetStreamStoreOptions = {}) {
  const n = ++streams;
  const options = { stream: `LOG_${n}`, subjectRoot: `log${n}.ev`, ...extra };
  const nc = await connectCluster(url);
  const store = await JetStreamEventStore.open(nc, options);
  return { nc, store, options };
}

async function messagesIn(nc: NatsConnection, stream: string): Promise<number> {
  return (await (await jetstreamManager(nc)).streams.info(stream)).state.messages;
}

test('events are stored under <root>.<type>.<session>, the session written as one token', async ({ server }) => {
  const { nc, store, options } = await fresh(server.url);
  append(store, chunk('agent:main:telegram:42', 't'));
  append(store, chunk('a.b c*', 't'));
  append(store, { type: 'runtime.started', data: { pid: 1, command: 'gateway' } });
  await store.flushed();
  const jsm = await jetstreamManager(nc);
  const subjects = await Promise.all(
    [1, 2, 3].map(async (seq) => (await jsm.streams.getMessage(options.stream, { seq }))!.subject),
  );
  assert.equal(subjects, [
    `${options.subjectRoot}.provider-chunk.agent:main:telegram:42`,
    `${options.subjectRoot}.provider-chunk.a%2Eb%20c%2A`,
    `${options.subjectRoot}.runtime-started.%00`,
  ]);
  store.close();
  await nc.close();
});

test('a publish whose ack did not come in time is sent again and stored once', async ({ server }) => {
  const { nc, store, options } = await fresh(server.url, { ackTimeoutMs: 150 });
  server.pause();
  const seqs = [1, 2, 3].map((i) => append(store, chunk('a', 't', `d${i}`)).seq);
  // Every first send times out while the server is stopped, and is sent again; the server then sees each twice. The
  // pause, over four ack timeouts, is the scenario here.
  await new Promise((resolve) => setTimeout(resolve, 700));
  server.resume();
  await store.flushed();
  assert.equal(seqs, [1, 2, 3]);
  assert.is(await messagesIn(nc, options.stream), 3);
  assert.equal(
    store.read().map((e) => [e.seq, e.data]),
    [
      [1, { kind: 'text', delta: 'd1' }],
      [2, { kind: 'text', delta: 'd2' }],
      [3, { kind: 'text', delta: 'd3' }],
    ],
  );
  assert.is(append(store, chunk('a', 't')).seq, 4);
  await store.flushed();
  store.close();
  await nc.close();
});

const codeOf = (pending: Promise<unknown>): Promise<string | undefined> =>
  pending.then(
    () => undefined,
    (error: unknown) => (error as { code?: string }).code,
  );

test('a second writer is fenced off (log_fenced): its appends are numbered, not stored, not thrown', async (ctx) => {
  const { server } = ctx;
  const first = await fresh(server.url);
  const other = await connectCluster(server.url);
  const fences: string[] = [];
  const onFenced = (error: LogError): void => void fences.push(`${error.code}: ${error.message}`);
  const second = await JetStreamEventStore.open(other, { ...first.options, onFenced });
  append(first.store, chunk('a', 't', 'first'));
  await first.store.flushed();
  append(second, chunk('b', 't', 'second'));
  assert.is(await codeOf(second.committed()), 'log_fenced');
  const taken = `another writer appended to the event stream ${first.options.stream} (seq 1 is taken)`;
  assert.equal(fences, [`log_fenced: ${taken}`]);
  assert.is(second.fenced?.code, 'log_fenced');
  // Later appends are numbered as the contract asks (subscribers saw them) and dropped; the first writer goes on.
  assert.is(append(second, chunk('b', 't', 'after the fence')).seq, 2);
  append(first.store, chunk('a', 't', 'first again'));
  await first.store.flushed();
  assert.is(await codeOf(second.flushed()), 'log_fenced');
  assert.is(await messagesIn(first.nc, first.options.stream), 2);
  const stored = [
    [1, 'a'],
    [2, 'a'],
  ];
  assert.equal(await eventually(() => second.read().map((e) => [e.seq, e.session]), stored), stored);
  assert.equal(fences.length, 1);
  first.store.close();
  second.close();
  await Promise.all([first.nc.close(), other.close()]);
});

test('writes sent right behind one another writer beat are refused too, not stored after it', async ({ server }) => {
  const first = await fresh(server.url);
  const other = await connectCluster(server.url);
  const second = await JetStreamEventStore.open(other, first.options);
  append(second, chunk('b', 't', 'second 1'));
  await second.flushed();
  const jsm = await jetstreamManager(first.nc);
  // The first writer opened before and takes seq 2 while the second writer's seq 2 and 3 are on their way.
  const stale = await JetStreamEventStore.open(first.nc, first.options);
  append(stale, chunk('a', 't', 'first 2'));
  await stale.flushed();
  append(second, chunk('b', 't', 'second 2'));
  append(second, chunk('b', 't', 'second 3'));
  append(second, chunk('b', 't', 'second 4'));
  assert.is(await codeOf(second.committed()), 'log_fenced');
  assert.is((await jsm.streams.info(first.options.stream)).state.last_seq, 2);
  const stored = [
    { kind: 'text', delta: 'second 1' },
    { kind: 'text', delta: 'first 2' },
  ];
  assert.equal(await eventually(() => second.read().map((e) => e.data as unknown), stored), stored);
  stale.close();
  first.store.close();
  second.close();
  await Promise.all([first.nc.close(), other.close()]);
});

test('a reader on another connection follows what the writer appends, by session', async ({ server }) => {
  const writer = await fresh(server.url);
  append(writer.store, chunk('a', 't1', 'before'));
  await writer.store.flushed();
  const readerNc = await connectCluster(server.url);
  const reader = await JetStreamEventStore.open(readerNc, { ...writer.options, readOnly: true });
  assert.equal(
    reader.read().map((e) => e.seq),
    [1],
  );
  assert.throws(
    () => append(reader, chunk('a', 't')),
    (e: unknown) => (e as { code?: string }).code === 'log_write_failed',
  );
  const controller = new AbortController();
  const seen: Array<[number, string]> = [];
  const following = (async () => {
    for await (const event of follow(reader, { session: 'a' }, { signal: controller.signal })) {
      seen.push([event.seq, event.type === 'provider.chunk' ? event.data.delta : event.type]);
      if (seen.length === 2) controller.abort();
    }
  })();
  append(writer.store, chunk('b', 't2', 'other session'));
  append(writer.store, chunk('a', 't2', 'after'));
  await following;
  assert.equal(seen, [
    [1, 'before'],
    [3, 'after'],
  ]);
  reader.close();
  writer.store.close();
  await Promise.all([writer.nc.close(), readerNc.close()]);
});

test('opening a missing stream read-only fails with log_missing', async ({ server }) => {
  const nc = await connectCluster(server.url);
  const failure = await JetStreamEventStore.open(nc, { stream: 'NOWHERE', readOnly: true }).then(
    () => undefined,
    (error: unknown) => error,
  );
  assert.is((failure as { code?: string } | undefined)?.code, 'log_missing');
  await nc.close();
});

test(
  'the log survives the server being killed with SIGKILL: ' +
    'acked events are kept and appends go on after the restart',
  async ({ server }) => {
    const { nc, store, options } = await fresh(server.url, { ackTimeoutMs: 300 });
    for (let i = 1; i <= 20; i++) append(store, chunk(`s${i % 3}`, 't', `d${i}`));
    await store.flushed();
    await server.kill9();
    const during = append(store, chunk('s0', 't', 'while down'));
    await server.restart();
    await store.flushed();
    assert.is(during.seq, 21);
    assert.is(await eventually(() => store.lastCommittedSeq(), 21), 21);
    assert.is(await messagesIn(nc, options.stream), 21);
    const again = await JetStreamEventStore.open(nc, options);
    assert.equal(
      again.read({ session: 's0' }).map((e) => e.seq),
      [3, 6, 9, 12, 15, 18, 21],
    );
    again.close();
    store.close();
    await nc.close();
  },
);

suite.run();
