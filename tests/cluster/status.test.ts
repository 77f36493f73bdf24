// `tern cluster status` against a real cluster (#27): two members each running one Telegram bot and one of them the
// heartbeat and cron; the output lists the members, the leases, and each stream with a channel account's lag (messages
// accepted and not answered yet). A member stopping leaves the cluster with `cluster.member.left`.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import * as assert from 'uvu/assert';
import { connectCluster } from '../../store/cluster/connection.js';
import { DELIVERY_STREAM, DeliveryQueue, type Delivery } from '../../store/cluster/delivery-queue.js';
import { Leases } from '../../store/cluster/leases.js';
import { ClusterLogView } from '../../store/log/cluster-view.js';
import { runCliAsync } from '../support/cli.js';
import { leasesOf, logged, memberConfig, telegramAccounts } from '../support/cluster-gateways.js';
import { until } from '../support/eventually.js';
import { startGatewayModel, type GatewayModel } from '../support/gateway-model.js';
import { startGatewayProcess, type GatewayProcess } from '../support/gateway-process.js';
import { natsSuite } from '../support/nats-server.js';
import { TelegramEmulator } from '../support/telegram-emulator.js';
import { tempHome, type TempHome } from '../support/temp-home.js';

const TOKENS = ['781111:status-bot-one-AAAA', '792222:status-bot-two-BBBB'];
const ACCOUNTS = ['tg1', 'tg2'];

interface Context {
  model?: GatewayModel;
  emulator?: TelegramEmulator;
  gateways: GatewayProcess[];
  nc?: NatsConnection;
  view?: ClusterLogView;
  reader?: TempHome;
}

const { test, suite, after } = natsSuite<Context>('tern cluster status');

after(async (context) => {
  context.view?.close();
  await context.nc?.close();
  for (const gateway of context.gateways) await gateway.stop();
  await context.emulator?.stop();
  await context.model?.close();
  for (const gateway of context.gateways) gateway.home.remove();
  context.reader?.remove();
});

/** The status text with what changes from run to run (ages, pids, counts, the host) written as placeholders. */
async function status(reader: TempHome, url: string): Promise<string[]> {
  const result = await runCliAsync(['cluster', 'status'], reader.env);
  assert.is(result.code, 0, result.stderr);
  return result.stdout
    .trimEnd()
    .split('\n')
    .map((line) =>
      line
        .replace(url, 'URL')
        .replace(/pid \d+ on \S+,/, 'pid PID on HOST,')
        .replace(/\d+\.\ds ago/g, 'Ns ago')
        .replace(/: \d+ events,/, ': N events,'),
    );
}

/** A cron job's text for a Telegram chat of `account`, as a member relays it. */
const delivery = (account: string, n: number): Delivery => ({
  message_id: `cron-${n}`,
  outcome: 'message',
  text: `report ${n}`,
  key: `cron-${n}:send`,
  reply: { channel: account, chat: 'telegram:direct:6001', reply_to: '6001' },
});

// First in the suite: the server is fresh, so the delivery stream does not exist yet.
test(
  'texts relayed to a channel account wait in TERN_DELIVER: ' + 'counted per account, saying whether a member runs it',
  async ({ server }) => {
    const reader = tempHome();
    const nc = await connectCluster(server.url);
    // The same TTL as the members the next test starts (`memberConfig`): the lease bucket is created with it, and a
    // member opening the bucket with another TTL would be refused.
    const leases = await Leases.open(nc, { gateway: 'node-z', ttlMs: 5_000 });
    try {
      writeFileSync(join(reader.home, 'config.json'), JSON.stringify({ version: 2, cluster: { url: server.url } }));
      const queuedOf = async (): Promise<unknown> => {
        const result = await runCliAsync(['cluster', 'status', '--json'], reader.env);
        assert.is(result.code, 0, result.stderr);
        return (JSON.parse(result.stdout) as { queued: unknown }).queued;
      };
      assert.equal(await queuedOf(), []);

      // `ops bot` is held by a member that takes nothing from the queue yet, tg9 by nobody. The name with a space is
      // escaped in its subject (`tern.deliver.ops%20bot`) and read back as it was written.
      assert.ok(await leases.acquire('channel', 'ops bot'));
      const queue = await DeliveryQueue.open(nc);
      await queue.enqueue('tg9', delivery('tg9', 1));
      await queue.enqueue('ops bot', delivery('ops bot', 2));
      await queue.enqueue('tg9', delivery('tg9', 3));
      // A publish sent again (same send key) is queued once.
      await queue.enqueue('tg9', delivery('tg9', 3));
      assert.equal(await queuedOf(), [
        { account: 'ops bot', texts: 1 },
        { account: 'tg9', texts: 2 },
      ]);
      assert.equal(await status(reader, server.url), [
        'cluster URL: 0 member(s)',
        'leases:',
        '  channel ops bot  held by node-z, renewed Ns ago',
        'streams (lag: messages accepted and not answered yet):',
        '  none',
        'texts waiting for ops bot: 1 (relayed, not yet taken by the member running it)',
        'texts waiting for tg9: 2 (no member runs tg9 now)',
      ]);
    } finally {
      // The next test starts from an empty queue and no lease.
      await (await jetstreamManager(nc)).streams.purge(DELIVERY_STREAM).catch(() => undefined);
      await leases.close();
      await nc.close();
      reader.remove();
    }
  },
);

test("members, leases and each stream's lag; a member that stops leaves the cluster", async (context) => {
  const { server } = context;
  context.gateways = [];
  context.model = await startGatewayModel();
  context.emulator = await TelegramEmulator.start(undefined, { offsets: true });
  const channels = telegramAccounts(ACCOUNTS, TOKENS, context.emulator.url);
  for (const id of ['node-a', 'node-b'])
    context.gateways.push(
      await startGatewayProcess(await memberConfig({ url: server.url, id, modelUrl: context.model.url, channels })),
    );
  const nc = (context.nc = await connectCluster(server.url));
  const held = await until(
    'each member to run one bot',
    async () => {
      const leases = await leasesOf(nc, 'channel');
      return new Set(leases.map((l) => l.gateway)).size === 2 && (await leasesOf(nc, 'schedule')).length === 1
        ? leases
        : undefined;
    },
    60_000,
    () => leasesOf(nc, 'channel'),
  );
  const holder = Object.fromEntries(held.map((l) => [l.id, l.gateway])) as Record<string, string>;
  const scheduler = (await leasesOf(nc, 'schedule'))[0]!.gateway;
  const view = (context.view = await ClusterLogView.open(nc));
  context.reader = tempHome();
  writeFileSync(join(context.reader.home, 'config.json'), JSON.stringify({ version: 2, cluster: { url: server.url } }));

  // A message the model holds: accepted by tg1's member, not answered yet.
  await context.emulator.say(TOKENS[0]!, 'HOLD on', { userId: 7201 });
  await logged(view, { type: 'turn.started' }, (events) => events.length === 1, 30_000);
  const runs = (node: string): string =>
    [...ACCOUNTS.filter((a) => holder[a] === node), ...(scheduler === node ? ['the heartbeat and cron'] : [])].join(
      ', ',
    );
  const expected = (lagTg1: number): string[] => [
    'cluster URL: 2 member(s)',
    ...['node-a', 'node-b'].map((node) => `  ${node}  pid PID on HOST, seen Ns ago, runs ${runs(node)}`),
    'leases:',
    ...ACCOUNTS.map((a) => `  channel ${a}  held by ${holder[a]}, renewed Ns ago`),
    `  schedule heartbeat-cron  held by ${scheduler}, renewed Ns ago`,
    'streams (lag: messages accepted and not answered yet):',
    `  TERN_CH_tg1  channel account tg1: N events, last write Ns ago, lag ${lagTg1}`,
    '  TERN_CH_tg2  channel account tg2: N events, last write Ns ago, lag 0',
    '  TERN_GW_node-a  member node-a: N events, last write Ns ago',
    '  TERN_GW_node-b  member node-b: N events, last write Ns ago',
  ];
  assert.equal(await status(context.reader, server.url), expected(1));
  context.model.release();
  await context.emulator.waitForBotMessages(TOKENS[0]!, 7201, 1, 30_000);
  await logged(view, { type: 'reply.delivered' }, (events) => events.length === 1, 30_000);
  assert.equal(await status(context.reader, server.url), expected(0));

  const json = JSON.parse((await runCliAsync(['cluster', 'status', '--json'], context.reader.env)).stdout) as {
    members: Array<{ gateway: string }>;
    leases: Array<{ kind: string; id: string; gateway: string }>;
    streams: Array<{ stream: string; unanswered?: number }>;
    queued: unknown[];
  };
  assert.equal(
    json.members.map((m) => m.gateway),
    ['node-a', 'node-b'],
  );
  assert.equal(
    json.streams.map((s) => [s.stream, s.unanswered ?? null]),
    [
      ['TERN_CH_tg1', 0],
      ['TERN_CH_tg2', 0],
      ['TERN_GW_node-a', null],
      ['TERN_GW_node-b', null],
    ],
  );
  assert.equal(json.queued, []);

  // Joining and leaving are events: node-b stops on purpose, its leases go to node-a.
  await context.gateways[1]!.stop();
  const left = await logged(view, { type: 'cluster.member.left' }, (events) => events.length === 1, 30_000);
  assert.equal(
    left.map((e) => [e.gateway, e.data]),
    [['node-b', { gateway: 'node-b', reason: 'stopped', by: 'node-b' }]],
  );
  assert.equal(
    view
      .read({ type: 'cluster.member.joined' })
      .map((e) => (e.data as { gateway: string }).gateway)
      .sort(),
    ['node-a', 'node-b'],
  );
  await until(
    'node-a to run both bots and the schedule',
    async () =>
      (await leasesOf(nc, 'channel')).every((l) => l.gateway === 'node-a') &&
      (await leasesOf(nc, 'schedule'))[0]?.gateway === 'node-a' &&
      (await leasesOf(nc, 'channel')).length === 2
        ? true
        : undefined,
    30_000,
  );
  const alone = await status(context.reader, server.url);
  assert.equal(alone.slice(0, 7), [
    'cluster URL: 1 member(s)',
    '  node-a  pid PID on HOST, seen Ns ago, runs tg1, tg2, the heartbeat and cron',
    'leases:',
    '  channel tg1  held by node-a, renewed Ns ago',
    '  channel tg2  held by node-a, renewed Ns ago',
    '  schedule heartbeat-cron  held by node-a, renewed Ns ago',
    'streams (lag: messages accepted and not answered yet):',
  ]);
});

test(
  'no cluster configured: a usage answer naming both ways to give one; ' + 'an unreachable server: how to fix it',
  async () => {
    const home = tempHome();
    try {
      writeFileSync(join(home.home, 'config.json'), JSON.stringify({ version: 2 }));
      const none = await runCliAsync(['cluster', 'status'], home.env);
      assert.equal(
        [none.code, none.stderr.trim()],
        [
          1,
          'tern: no cluster configured (neither --cluster nor cluster.url names a NATS server). ' +
            'Pass --cluster nats://HOST:PORT or set cluster.url in config.json.',
        ],
      );
      const down = await runCliAsync(['cluster', 'status', '--cluster', 'nats://127.0.0.1:9', '--json'], home.env);
      assert.is(down.code, 1);
      const error = (JSON.parse(down.stdout) as { ok: boolean; error: { code: string; message: string } }).error;
      assert.is(error.code, 'cluster_unreachable');
      assert.match(error.message, /^cannot reach the cluster at nats:\/\/127\.0\.0\.1:9/);
    } finally {
      home.remove();
    }
  },
);

suite.run();
