// What one NATS JetStream server costs per unit of a Tern cluster, measured for docs/scale.md (not a bench row: it
// runs for minutes and its figures are the inputs of a calculation). On a fresh `nats-server -js` it adds, in turn:
// channel-account streams (as `TERN_CH_<account>`), session subjects in one account's stream (one message of an
// average event's size each), and KV keys (as leases and send marks); after each step it reads the server's RSS and
// store size; then reads keys back at random and lists the bucket's keys as Tern lists its leases (`bucketKeys`).
// Run: `node --import tsx bench/scale-probe.ts [--streams N] [--subjects N] [--keys N]`; 0 skips a step.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { connectCluster } from '../store/cluster/connection.js';
import { bucketKeys } from '../store/cluster/subject-counts.js';
import { startNatsServer } from '../tests/support/nats-server.js';

const { values } = parseArgs({
  options: { streams: { type: 'string' }, subjects: { type: 'string' }, keys: { type: 'string' } },
});
const STREAMS = Number(values.streams ?? 2_000);
const SUBJECTS = Number(values.subjects ?? 100_000);
const KEYS = Number(values.keys ?? 100_000);
/** An event as a cluster stream stores it: msgpack of the envelope, a short turn's events average about this. */
const EVENT_BYTES = 600;
const WINDOW = 2_000;

const rssMb = (pid: number): number => {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'))!;
  return Number(line.split(/\s+/)[1]) / 1024;
};

const server = await startNatsServer();
const nc = await connectCluster(server.url);
const jsm = await jetstreamManager(nc);
const js = jetstream(nc);
const rows: Array<[string, number, string]> = [];
const row = (name: string, value: number, unit: string): void => {
  rows.push([name, Math.round(value * 100) / 100, unit]);
  console.log(`${name.padEnd(44)} ${String(Math.round(value * 100) / 100).padStart(10)}  ${unit}`);
};

try {
  const idle = rssMb(server.pid);
  row('server.idle_rss_mb', idle, 'MB');

  let started = performance.now();
  for (let i = 0; i < STREAMS; i++) {
    await jsm.streams.add({ name: `TERN_CH_probe${i}`, subjects: [`tern.ch.probe${i}.>`] });
  }
  const streamsMs = performance.now() - started;
  const withStreams = rssMb(server.pid);
  if (STREAMS > 0) {
    row('streams.created', STREAMS, 'streams');
    row('streams.create_ms_each', streamsMs / STREAMS, 'ms');
    row('streams.rss_kb_each', ((withStreams - idle) * 1024) / STREAMS, 'KB');
  }

  let withSubjects = withStreams;
  if (SUBJECTS > 0) {
    await jsm.streams.add({ name: 'TERN_CH_busy', subjects: ['tern.ch.busy.>'] });
    const payload = new Uint8Array(EVENT_BYTES).fill(7);
    started = performance.now();
    let pending: Promise<unknown>[] = [];
    for (let i = 0; i < SUBJECTS; i++) {
      pending.push(js.publish(`tern.ch.busy.message-routed.s${i}`, payload, { msgID: `probe-${i}` }));
      if (pending.length === WINDOW) {
        await Promise.all(pending);
        pending = [];
      }
    }
    await Promise.all(pending);
    const publishMs = performance.now() - started;
    const busy = await jsm.streams.info('TERN_CH_busy', { subjects_filter: '' });
    withSubjects = rssMb(server.pid);
    row('subjects.sessions', busy.state.num_subjects ?? SUBJECTS, 'subjects');
    row('subjects.publish_per_s', SUBJECTS / (publishMs / 1000), 'msgs/s');
    row('subjects.store_bytes_each', busy.state.bytes / SUBJECTS, 'B');
    row('subjects.rss_bytes_each', ((withSubjects - withStreams) * 1024 * 1024) / SUBJECTS, 'B');

    // A member taking an account over reads its stream from the start into its replica: how fast that goes.
    started = performance.now();
    const consumer = await js.consumers.get('TERN_CH_busy');
    const reading = await consumer.consume();
    let read = 0;
    for await (const message of reading) {
      if (message.data.length !== EVENT_BYTES) throw new Error('a message came back changed');
      if (++read === SUBJECTS) break;
    }
    row('subjects.read_per_s', SUBJECTS / ((performance.now() - started) / 1000), 'msgs/s');
  }

  const kv = await new Kvm(nc).create('tern_probe', { history: 1 });
  const value = new TextEncoder().encode(JSON.stringify({ gateway: 'node-017', until: Date.now() + 5_000 }));
  started = performance.now();
  let pending: Promise<unknown>[] = [];
  for (let i = 0; i < KEYS; i++) {
    pending.push(kv.put(`session.tg1.s${i}`, value));
    if (pending.length === WINDOW) {
      await Promise.all(pending);
      pending = [];
    }
  }
  await Promise.all(pending);
  const putMs = performance.now() - started;
  const kvInfo = await jsm.streams.info('KV_tern_probe');
  row('kv.keys', KEYS, 'keys');
  row('kv.put_per_s', KEYS / (putMs / 1000), 'puts/s');
  row('kv.store_bytes_each', kvInfo.state.bytes / KEYS, 'B');
  row('kv.rss_bytes_each', ((rssMb(server.pid) - withSubjects) * 1024 * 1024) / KEYS, 'B');

  // A lease check or a send mark read is one `get` of a key among all the others.
  const GETS = Math.min(KEYS, 20_000);
  started = performance.now();
  pending = [];
  for (let i = 0; i < GETS; i++) {
    pending.push(kv.get(`session.tg1.s${Math.floor(Math.random() * KEYS)}`));
    if (pending.length === WINDOW) {
      await Promise.all(pending);
      pending = [];
    }
  }
  await Promise.all(pending);
  row('kv.get_per_s', GETS / ((performance.now() - started) / 1000), 'gets/s');
  // `tern cluster status` and every member's reconcile list the leases' keys: one request, answered with every key.
  // At 1,000,000 keys the server's answer did not come within the client's request timeout: that is the figure.
  started = performance.now();
  try {
    const listed = await bucketKeys(nc, 'tern_probe');
    row('kv.list_keys_ms', performance.now() - started, 'ms');
    if (listed.length !== KEYS) throw new Error(`the listing had ${listed.length} keys of ${KEYS}`);
  } catch (error) {
    row('kv.list_keys_failed_after_ms', performance.now() - started, 'ms');
    console.log(`listing the keys failed: ${(error as Error).message}`);
  }
  row('server.rss_mb_at_end', rssMb(server.pid), 'MB');
} finally {
  await nc.close();
  await server.close();
}
console.log(JSON.stringify({ rows: rows.map(([name, value, unit]) => ({ name, value, unit })) }));
