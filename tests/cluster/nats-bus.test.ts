// What the NATS bus does across processes beyond the shared contract: another gateway observes what one publishes
// (and knows whose it is), and a work item taken by a process that died before acknowledging it goes to another.
import * as assert from 'uvu/assert';
import { jetstream } from '@nats-io/jetstream';
import type { Envelope } from '../../bus/index.js';
import { connectCluster } from '../../store/cluster/connection.js';
import { NatsBus, type NatsBusOptions } from '../../store/cluster/nats-bus.js';
import { MemoryEventStore } from '../../store/log/memory-event-store.js';
import { eventually } from '../support/eventually.js';
import { natsSuite } from '../support/nats-server.js';

const { test, suite } = natsSuite('nats bus across processes');
let clusters = 0;
const optionsFor = (): Omit<NatsBusOptions, 'gateway'> => {
  const n = ++clusters;
  return { workStream: `XWORK_${n}`, workRoot: `xw${n}`, busRoot: `xb${n}`, ackWaitMs: 600 };
};

test('a gateway observes the events another publishes, each marked with the gateway it came from', async ({ server }) => {
  const options = optionsFor();
  const [ncA, ncB] = await Promise.all([connectCluster(server.url), connectCluster(server.url)]);
  const a = await NatsBus.open(ncA, { ...options, gateway: 'gw-a' }, new MemoryEventStore());
  const b = await NatsBus.open(ncB, { ...options, gateway: 'gw-b' }, new MemoryEventStore());
  const seenByB: Array<[string, string, string]> = [];
  b.matching('turn.*').subscribe((e: Envelope) => seenByB.push([b.originOf(e), e.type, e.session ?? '']));
  await ncB.flush();
  a.publish({ agent: 'main', session: 's1', turn: 't1', type: 'turn.stop.requested', data: { message_id: 'm1' } });
  b.publish({ agent: 'main', session: 's2', turn: 't2', type: 'turn.stop.requested', data: { message_id: 'm2' } });
  const expected: Array<[string, string, string]> = [['gw-b', 'turn.stop.requested', 's2'], ['gw-a', 'turn.stop.requested', 's1']];
  assert.equal((await eventually(() => [...seenByB].sort().reverse(), expected)), expected);
  a.complete();
  b.complete();
  await Promise.all([ncA.close(), ncB.close()]);
});

test('a work item taken by a process that died before acknowledging it is handed to another after the ack wait', async ({ server }) => {
  const options = optionsFor();
  const nc = await connectCluster(server.url);
  const publisher = await NatsBus.open(nc, { ...options, gateway: 'gw-a' }, new MemoryEventStore());
  publisher.publish({ agent: 'main', session: 's1', type: 'message.routed', data: { message_id: 'm1', channel: 'tg', account: 'default', chat: 'c', sender: 'u', text: 'hello', session_key: 's1', remote: false, media: [] } });
  await publisher.durable();
  // A process pulls the item and dies before acknowledging it.
  const dying = await connectCluster(server.url);
  const taken = await (await jetstream(dying).consumers.get(options.workStream!, 'work-sessions')).next({ expires: 2_000 });
  assert.is(taken?.json<Envelope<'message.routed'>>().data.message_id, 'm1');
  await dying.close();
  const started = Date.now();
  const got: string[] = [];
  const subscription = publisher.work('sessions').subscribe((e) => got.push(e.data.message_id));
  assert.equal(await eventually(() => got, ['m1'], 5_000), ['m1']);
  assert.ok(Date.now() - started >= 300, 'handed out again only after the ack wait');
  subscription.unsubscribe();
  publisher.complete();
  await nc.close();
});

suite.run();
