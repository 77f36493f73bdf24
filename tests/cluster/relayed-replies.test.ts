// Replies that do not start from an inbound message reach a chat whose channel account another member runs (#27):
// member node-a (in this process, on a hand-moved clock so its heartbeat can be made to run) holds the schedule lease
// and bot tg1; member node-b (a `tern gateway` process) holds bot tg2. node-a's heartbeat answer and cron `deliver`
// job for a chat of tg2 are relayed to node-b and sent once; a turn's `message` tool on node-b reaches a chat of tg1
// through node-a (its result saying it was handed over); and a text relayed while tg2's holder is dead (SIGKILL) is
// sent once by the member taking tg2 over.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NatsConnection } from '@nats-io/transport-node';
import * as assert from 'uvu/assert';
import type { ClusterNode } from '../../actors/cluster/cluster-node.js';
import { connectCluster } from '../../store/cluster/connection.js';
import { loadConfig } from '../../store/config/index.js';
import { putCronJob } from '../../store/cron-db.js';
import { ClusterLogView } from '../../store/log/cluster-view.js';
import { openGatewayLogs, type GatewayLogs } from '../../store/logs/logger.js';
import { deliverJob } from '../cron/cron-harness.js';
import { leasesOf, logged, memberConfig, telegramAccounts } from '../support/cluster-gateways.js';
import { until } from '../support/eventually.js';
import { ManualClock } from '../support/gateway-clock.js';
import { startGatewayModel, type GatewayModel } from '../support/gateway-model.js';
import { startGatewayProcess, type GatewayProcess } from '../support/gateway-process.js';
import { natsSuite } from '../support/nats-server.js';
import { quietValue } from '../support/quiet.js';
import { TelegramEmulator } from '../support/telegram-emulator.js';
import { tempHome, type TempHome } from '../support/temp-home.js';

const TOKENS = ['744444:relay-bot-one-AAAA', '755555:relay-bot-two-BBBB'];
const ACCOUNTS = ['tg1', 'tg2'];
const TTL_MS = 5_000;

interface Context {
  model: GatewayModel;
  emulator: TelegramEmulator;
  shared: string;
  workspace: string;
  home: TempHome;
  logs: GatewayLogs;
  clock: ManualClock;
  nodeA: ClusterNode;
  nodeB: GatewayProcess;
  nc: NatsConnection;
  view: ClusterLogView;
}

const { test, suite, after } = natsSuite<Context>("replies relayed to the member running the chat's channel account");

suite.before(async (context) => {
  if (!context.server) return;
  context.model = await startGatewayModel();
  context.emulator = await TelegramEmulator.start(undefined, { offsets: true });
  context.shared = mkdtempSync(join(tmpdir(), 'tern-shared-'));
  context.workspace = join(context.shared, 'workspace');
  mkdirSync(context.workspace, { recursive: true });
  writeFileSync(join(context.workspace, 'HEARTBEAT.md'), '- check the weather\n');
  const config = async (id: string): Promise<Record<string, unknown>> => ({
    version: 2,
    ...(await memberConfig({
      url: context.server.url,
      id,
      modelUrl: context.model.url,
      channels: telegramAccounts(ACCOUNTS, TOKENS, context.emulator.url),
      ttlMs: TTL_MS,
      extra: {
        agents: { defaults: { model: 'fast', workspace: context.workspace } },
        heartbeat: { enabled: true, interval: 30 },
      },
    })),
  });
  // node-a starts alone and takes the schedule and both bots; node-b joins and node-a hands it one bot (tg2).
  context.home = tempHome();
  mkdirSync(context.home.home, { recursive: true });
  writeFileSync(join(context.home.home, 'config.json'), JSON.stringify(await config('node-a')));
  const loaded = loadConfig({ env: context.home.env });
  context.logs = openGatewayLogs(loaded);
  context.clock = new ManualClock(Date.now());
  const { ClusterNode } = await import('../../actors/cluster/cluster-node.js');
  context.nodeA = await ClusterNode.start(
    { loaded, env: context.home.env, logs: context.logs, scheduler: context.clock },
    { url: context.server.url, id: 'node-a', ttlMs: TTL_MS },
  );
  context.nc = await connectCluster(context.server.url);
  await until(
    'node-a to hold both bots',
    async () => ((await leasesOf(context.nc, 'channel')).length === 2 ? true : undefined),
    30_000,
  );
  context.nodeB = await startGatewayProcess(await config('node-b'));
  await until(
    'tg2 to move to node-b',
    async () => {
      const leases = [...(await leasesOf(context.nc, 'channel')), ...(await leasesOf(context.nc, 'schedule'))]
        .map((l) => `${l.kind} ${l.id} ${l.gateway}`)
        .sort();
      return JSON.stringify(leases) ===
        JSON.stringify(['channel tg1 node-a', 'channel tg2 node-b', 'schedule heartbeat-cron node-a'])
        ? leases
        : undefined;
    },
    60_000,
    async () => [...(await leasesOf(context.nc, 'channel')), ...(await leasesOf(context.nc, 'schedule'))],
  );
  context.view = await ClusterLogView.open(context.nc);
});

after(async (context) => {
  context.view?.close();
  await context.nc?.close();
  await context.nodeB?.stop();
  await context.nodeA?.stop();
  context.logs?.close();
  await context.emulator?.stop();
  await context.model?.close();
  context.nodeB?.home.remove();
  context.home?.remove();
  if (context.shared) rmSync(context.shared, { recursive: true, force: true });
});

/** The texts a bot sent to a user, once `count` have come and a while has passed without another (no second copy). */
async function settledTexts(
  context: Context,
  bot: number,
  user: number,
  count: number,
  timeoutMs = 30_000,
): Promise<string[]> {
  await context.emulator.waitForBotMessages(TOKENS[bot]!, user, count, timeoutMs);
  return quietValue(() => context.emulator.botMessages(TOKENS[bot]!, user).map((m) => m.text), { quietMs: 2_000 });
}

/** Moves node-a's clock on in 5 s steps (cron re-reads its store every 5 s) until `done`, a few steps a second. */
async function stepClock(context: Context, what: string, done: () => boolean, timeoutMs = 30_000): Promise<void> {
  await until(
    what,
    () => {
      if (done()) return true;
      context.clock.advance(5_000);
      return undefined;
    },
    timeoutMs,
  );
}

test(
  "the heartbeat answer of the schedule's holder reaches " +
    'the last active chat, whose bot another member runs, once',
  async (context) => {
    await context.emulator.say(TOKENS[1]!, 'hello', { userId: 6002 });
    await context.emulator.waitForBotMessages(TOKENS[1]!, 6002, 1, 30_000);
    context.clock.advance(30 * 60_000);
    const texts = await settledTexts(context, 1, 6002, 2);
    assert.is(texts.length, 2, `the chat got ${JSON.stringify(texts)}`);
    assert.is(texts[0], 'echo: hello');
    assert.ok(texts[1]!.startsWith('echo: Heartbeat: run the periodic tasks from HEARTBEAT.md below.'), texts[1]);
    const ran = await logged(context.view, { type: 'heartbeat.ticked' }, (events) => events.length >= 1, 10_000);
    assert.equal(
      ran.map((e) => [e.gateway, e.data]),
      [['node-a', { outcome: 'ran' }]],
    );
    // The answer was sent by node-b from tg2's stream, requested there once.
    const requested = context.view
      .read({ type: 'reply.requested' })
      .filter((e) => e.type === 'reply.requested' && e.data.key.endsWith(':heartbeat'));
    assert.equal(
      requested.map((e) => [e.gateway, e.stream, e.type === 'reply.requested' && e.data.reply?.chat]),
      [['node-b', 'TERN_CH_tg2', 'direct:6002']],
    );
  },
);

test(
  "a cron `deliver` job run by the schedule's holder " + 'reaches a chat of a bot another member runs, once',
  async (context) => {
    await putCronJob(
      context.workspace,
      deliverJob(
        'greet',
        { kind: 'at', at: new Date(context.clock.now() + 20_000).toISOString() },
        { job: { kind: 'deliver', channel: 'tg2', chat: 'direct:6003', text: 'greet says hi' } },
      ),
    );
    await stepClock(
      context,
      'the job to reach the chat',
      () => context.emulator.botMessages(TOKENS[1]!, 6003).length > 0,
    );
    assert.equal(await settledTexts(context, 1, 6003, 1), ['greet says hi']);
    const fired = context.view.read({ type: 'cron.fired' });
    assert.equal(
      fired.map((e) => [e.gateway, e.data]),
      [['node-a', { job: 'greet', kind: 'deliver' }]],
    );
  },
);

test('the `message` tool in a turn on one member reaches a chat of a bot another member runs', async (context) => {
  await context.emulator.say(TOKENS[1]!, 'NOTE TO tg1 direct:6001 a note across the cluster', { userId: 6004 });
  assert.equal(await settledTexts(context, 1, 6004, 1), ['noted']);
  assert.equal(await settledTexts(context, 0, 6001, 1), ['a note across the cluster']);
  const sent = context.view
    .read({ type: 'message.sent' })
    .filter((e) => e.type === 'message.sent' && e.data.chat === 'direct:6001');
  assert.equal(
    sent.map((e) => [e.gateway, e.stream]),
    [['node-a', 'TERN_CH_tg1']],
  );
  // node-b only queued the text for node-a: the tool's result says it was handed over, not that it was sent.
  const results = context.view
    .read({ type: 'tool.completed' })
    .filter((e) => e.type === 'tool.completed' && e.data.call_id === 'call_note');
  assert.equal(
    results.map((e) => e.type === 'tool.completed' && [e.gateway, e.data.ok, e.data.content]),
    [
      [
        'node-b',
        true,
        'message handed to the gateway running tg1 (queued there, not yet confirmed sent) for tg1:direct:6001',
      ],
    ],
  );
});

test(
  "a text relayed while its bot's member is dead (SIGKILL) " + 'is sent once by the member that takes the bot over',
  async (context) => {
    await context.nodeB.kill();
    const killedAt = Date.now();
    await putCronJob(
      context.workspace,
      deliverJob(
        'late',
        { kind: 'at', at: new Date(context.clock.now() + 10_000).toISOString() },
        { job: { kind: 'deliver', channel: 'tg2', chat: 'direct:6005', text: 'late says hi' } },
      ),
    );
    // The job runs (and its text is queued) before node-a takes tg2 over.
    await stepClock(
      context,
      'the job to run',
      () => context.view.read({ type: 'cron.fired', since: killedAt }).length > 0,
    );
    const firedAt = context.view.read({ type: 'cron.fired', since: killedAt })[0]!.at;
    assert.equal(await settledTexts(context, 1, 6005, 1, 60_000), ['late says hi']);
    const takeover = context.view
      .read({ type: 'cluster.lease.acquired', since: killedAt })
      .filter((e) => e.type === 'cluster.lease.acquired' && e.data.id === 'tg2');
    // node-a tries tg2 once node-b's member entry has expired; `from` names node-b when its lease entry had not expired
    // yet at that try (both expire after the same TTL, in either order), and is absent when it had.
    const from = takeover[0]?.type === 'cluster.lease.acquired' ? takeover[0].data.from : undefined;
    assert.equal(
      takeover.map((e) => e.data),
      [{ gateway: 'node-a', kind: 'channel', id: 'tg2', ...(from === undefined ? {} : { from: 'node-b' }) }],
    );
    assert.ok(takeover[0]!.at > firedAt, `tg2 was taken over ${takeover[0]!.at - firedAt} ms after the job ran`);
    assert.equal(context.nodeA.held(), ['tg1', 'tg2']);
  },
);

suite.run();
