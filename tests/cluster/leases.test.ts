// Leases and membership in JetStream KV on a real nats-server: one holder per session or channel account, takeover
// when a holder stops heartbeating, and gateways joining and leaving as events.
import { hostname } from 'node:os';
import * as assert from 'uvu/assert';
import type { NatsConnection } from '@nats-io/transport-node';
import { InProcessBus, type Envelope } from '../../bus/index.js';
import { connectCluster } from '../../store/cluster/connection.js';
import { Leases } from '../../store/cluster/leases.js';
import { Members } from '../../store/cluster/members.js';
import { eventually, until } from '../support/eventually.js';
import { natsSuite } from '../support/nats-server.js';
import { tcpCut } from '../support/tcp-cut.js';

const { test, suite } = natsSuite<{ connections: NatsConnection[]; bus: InProcessBus; events: Envelope[] }>(
  'cluster leases and members',
);
let buckets = 0;

suite.before.each(async (context) => {
  context.connections = [];
  context.bus = new InProcessBus();
  context.events = [];
  context.bus.matching('cluster.*').subscribe((e) => context.events.push(e));
});
suite.after.each(async (context) => {
  for (const nc of context.connections) await nc.close();
});

async function gateways(
  context: { server: { url: string }; connections: NatsConnection[]; bus: InProcessBus },
  ids: string[],
  ttlMs = 900,
) {
  const bucket = `leases_${++buckets}`;
  return Promise.all(
    ids.map(async (gateway) => {
      const nc = await connectCluster(context.server.url);
      context.connections.push(nc);
      return Leases.open(nc, {
        gateway,
        bucket,
        ttlMs,
        heartbeatMs: 150,
        publish: (draft) => context.bus.publish(draft),
      });
    }),
  );
}

/** Resolves once the one lease `leases` lists has been renewed by its holder over `ms` from now. */
async function renewedFor(leases: Leases, ms: number): Promise<void> {
  const from = Date.now();
  const renewed = async () => ((await leases.list())[0]!.renewedAt >= from + ms ? true : undefined);
  await until(`the lease to be renewed over ${ms} ms`, renewed, ms + 10_000);
}

const leaseEvents = (events: Envelope[]) =>
  events.filter((e) => e.type.startsWith('cluster.lease.')).map((e) => [e.type, e.data]);

test(
  'a channel account is held by one gateway; ' + 'the other is refused while the holder heartbeats, past several TTLs',
  async (context) => {
    const [a, b] = await gateways(context, ['gw-a', 'gw-b']);
    assert.is(await a!.acquire('channel', 'telegram:bot-1'), true);
    assert.is(await b!.acquire('channel', 'telegram:bot-1'), false);
    assert.is(await a!.acquire('channel', 'telegram:bot-1'), true, 'the holder asking again still holds it');
    await renewedFor(b!, 2_500);
    assert.is(await b!.acquire('channel', 'telegram:bot-1'), false);
    assert.is(await b!.holder('channel', 'telegram:bot-1'), 'gw-a');
    assert.equal(
      (await b!.list()).map((l) => [l.kind, l.id, l.gateway]),
      [['channel', 'telegram:bot-1', 'gw-a']],
    );
    assert.equal(leaseEvents(context.events), [
      ['cluster.lease.acquired', { gateway: 'gw-a', kind: 'channel', id: 'telegram:bot-1' }],
    ]);
    await a!.close();
    await b!.close();
  },
);

test(
  'when the holder stops heartbeating, a gateway that wants ' +
    'the lease takes it over after the TTL, naming the old holder',
  async (context) => {
    const [a, b] = await gateways(context, ['gw-a', 'gw-b']);
    assert.is(await a!.acquire('session', 'agent:main:telegram:42'), true);
    b!.want('session', 'agent:main:telegram:42');
    await renewedFor(b!, 400);
    assert.is(b!.holds('session', 'agent:main:telegram:42'), false);
    const stopped = Date.now();
    a!.abandon();
    assert.is(await eventually(() => b!.holds('session', 'agent:main:telegram:42'), true, 5_000), true);
    const takeoverMs = Date.now() - stopped;
    assert.ok(takeoverMs >= 500 && takeoverMs < 2_500, `taken over after ${takeoverMs} ms (TTL 900 ms)`);
    assert.is(await a!.holder('session', 'agent:main:telegram:42'), 'gw-b');
    assert.equal(leaseEvents(context.events), [
      ['cluster.lease.acquired', { gateway: 'gw-a', kind: 'session', id: 'agent:main:telegram:42' }],
      ['cluster.lease.acquired', { gateway: 'gw-b', kind: 'session', id: 'agent:main:telegram:42', from: 'gw-a' }],
    ]);
    await b!.close();
  },
);

test('a restarted gateway taking up its own lease is never valid while another holds it', async (context) => {
  const ttlMs = 3_000;
  const bucket = `leases_${++buckets}`;
  const open = async (gateway: string, heartbeatMs: number): Promise<Leases> => {
    const nc = await connectCluster(context.server.url);
    context.connections.push(nc);
    return Leases.open(nc, { gateway, bucket, ttlMs, heartbeatMs });
  };
  const before = await open('gw-a', 150);
  assert.is(await before.acquire('channel', 'tg1'), true);
  before.abandon();
  // The process dies; the one started in its place comes when the entry is two thirds of a TTL old, and stalls.
  const [written] = await before.list();
  const aged = async () => (Date.now() - written!.renewedAt >= (2 * ttlMs) / 3 ? true : undefined);
  await until('the entry to age', aged, ttlMs);
  const after = await open('gw-a', 60_000);
  assert.is(await after.acquire('channel', 'tg1'), true);
  const other = await open('gw-b', 150);
  const taken = async () => ((await other.acquire('channel', 'tg1')) ? true : undefined);
  await until('the other gateway to take the lease', taken, 3 * ttlMs);
  assert.equal(
    { restarted: after.valid('channel', 'tg1'), other: other.valid('channel', 'tg1') },
    { restarted: false, other: true },
  );
  after.abandon();
  await other.close();
});

test('a restarted gateway taking up its own lease announces it as acquired', async (context) => {
  const bucket = `leases_${++buckets}`;
  const open = async (): Promise<Leases> => {
    const nc = await connectCluster(context.server.url);
    context.connections.push(nc);
    return Leases.open(nc, { gateway: 'gw-a', bucket, ttlMs: 30_000, publish: (d) => context.bus.publish(d) });
  };
  const before = await open();
  assert.is(await before.acquire('channel', 'tg1'), true);
  before.abandon();
  const after = await open();
  assert.is(await after.acquire('channel', 'tg1'), true);
  assert.equal(leaseEvents(context.events), [
    ['cluster.lease.acquired', { gateway: 'gw-a', kind: 'channel', id: 'tg1' }],
    ['cluster.lease.acquired', { gateway: 'gw-a', kind: 'channel', id: 'tg1' }],
  ]);
  await after.close();
});

test(
  'a released lease is taken by a gateway that wants it ' + 'at its next heartbeat, without waiting for the TTL',
  async (context) => {
    const [a, b] = await gateways(context, ['gw-a', 'gw-b'], 30_000);
    await a!.acquire('channel', 'discord:bot-2');
    b!.want('channel', 'discord:bot-2');
    await a!.release('channel', 'discord:bot-2');
    assert.is(await eventually(() => b!.holds('channel', 'discord:bot-2'), true, 2_000), true);
    assert.equal(
      leaseEvents(context.events).map(([type, data]) => [type, (data as { gateway: string }).gateway]),
      [
        ['cluster.lease.acquired', 'gw-a'],
        ['cluster.lease.released', 'gw-a'],
        ['cluster.lease.acquired', 'gw-b'],
      ],
    );
    await a!.close();
    await b!.close();
  },
);

test(
  'gateways announce joining; ' + 'one that stops heartbeating is announced as left once, by the first live member',
  async (context) => {
    const bucket = `members_${++buckets}`;
    const join = async (gateway: string) => {
      const nc = await connectCluster(context.server.url);
      context.connections.push(nc);
      return Members.join(nc, {
        gateway,
        bucket,
        ttlMs: 900,
        heartbeatMs: 150,
        publish: (draft) => context.bus.publish(draft),
      });
    };
    const a = await join('gw-a');
    const b = await join('gw-b');
    const c = await join('gw-c');
    assert.equal(
      (await a.list()).map((m) => m.gateway),
      ['gw-a', 'gw-b', 'gw-c'],
    );
    b.stop();
    const left = () => context.events.filter((e) => e.type === 'cluster.member.left').map((e) => e.data);
    assert.equal(await eventually(left, [{ gateway: 'gw-b', reason: 'expired', by: 'gw-a' }], 5_000), [
      { gateway: 'gw-b', reason: 'expired', by: 'gw-a' },
    ]);
    await c.leave();
    // The live members look for those that left at each heartbeat: gw-a has heartbeated past a TTL since.
    const since = Date.now();
    const seen = async () => (await a.list()).find((m) => m.gateway === 'gw-a')!.seenAt;
    const heartbeated = async () => ((await seen()) >= since + 1_500 ? true : undefined);
    await until('gw-a to heartbeat past a TTL', heartbeated, 10_000);
    assert.equal(left(), [
      { gateway: 'gw-b', reason: 'expired', by: 'gw-a' },
      { gateway: 'gw-c', reason: 'stopped', by: 'gw-c' },
    ]);
    assert.equal(
      context.events
        .filter((e) => e.type === 'cluster.member.joined')
        .map((e) => e.type === 'cluster.member.joined' && [e.data.gateway, e.data.pid]),
      [
        ['gw-a', process.pid],
        ['gw-b', process.pid],
        ['gw-c', process.pid],
      ],
    );
    assert.equal(
      (await a.list()).map((m) => m.gateway),
      ['gw-a'],
    );
    await a.leave();
  },
);

test(
  'a member cut off from the server: the others announce it left and take its lease, ' +
    'it learns the lease is lost, and when the cut heals it joins again',
  async (context) => {
    const n = ++buckets;
    const proxy = await tcpCut(context.server.port);
    const opened: Array<{ members: Members; leases: Leases }> = [];
    try {
      const open = async (gateway: string, url: string) => {
        const nc = await connectCluster(url);
        context.connections.push(nc);
        const publish = (draft: Parameters<InProcessBus['publish']>[0]) => void context.bus.publish(draft);
        const members = await Members.join(nc, {
          gateway,
          bucket: `split_members_${n}`,
          ttlMs: 900,
          heartbeatMs: 150,
          publish,
        });
        const leases = await Leases.open(nc, {
          gateway,
          bucket: `split_leases_${n}`,
          ttlMs: 900,
          heartbeatMs: 150,
          publish,
        });
        opened.push({ members, leases });
        return { members, leases };
      };
      const a = await open('gw-a', proxy.url);
      const b = await open('gw-b', context.server.url);
      assert.is(await a.leases.acquire('channel', 'tg1'), true);
      b.leases.want('channel', 'tg1');
      const seen = () => context.events.map((e) => [e.type, e.data]);
      proxy.cut();
      // Generous waits: a request of the cut member waits for its timeout before it learns the server is gone.
      await until(
        'gw-b to take the lease and gw-a to give it up',
        () => (b.leases.holds('channel', 'tg1') && !a.leases.holds('channel', 'tg1') ? true : undefined),
        30_000,
      );
      await until(
        'gw-a to be announced as left',
        () => (seen().some(([type]) => type === 'cluster.member.left') ? true : undefined),
        30_000,
        seen,
      );
      proxy.heal();
      await until(
        'gw-a to join again',
        () => (context.events.filter((e) => e.type === 'cluster.member.joined').length === 3 ? true : undefined),
        30_000,
        seen,
      );
      const joined = (gateway: string) => ['cluster.member.joined', { gateway, pid: process.pid, host: hostname() }];
      const events = seen();
      assert.equal(events.slice(0, 3), [
        joined('gw-a'),
        joined('gw-b'),
        ['cluster.lease.acquired', { gateway: 'gw-a', kind: 'channel', id: 'tg1' }],
      ]);
      // During the cut, in whichever order the two sides notice it:
      assert.equal(
        events
          .slice(3, 6)
          .map((e) => JSON.stringify(e))
          .sort(),
        [
          ['cluster.lease.acquired', { gateway: 'gw-b', kind: 'channel', id: 'tg1', from: 'gw-a' }],
          ['cluster.lease.released', { gateway: 'gw-a', kind: 'channel', id: 'tg1', reason: 'lost' }],
          ['cluster.member.left', { gateway: 'gw-a', reason: 'expired', by: 'gw-b' }],
        ]
          .map((e) => JSON.stringify(e))
          .sort(),
      );
      assert.equal(events.slice(6), [joined('gw-a')], 'back after the cut, gw-a joins again');
      assert.equal(
        (await b.members.list()).map((m) => m.gateway),
        ['gw-a', 'gw-b'],
      );
      assert.is(await a.leases.acquire('channel', 'tg1'), false, 'the lease stays with gw-b');
    } finally {
      for (const { members, leases } of opened) {
        leases.abandon();
        members.stop();
      }
      await proxy.close();
    }
  },
);

suite.run();
