// The dashboard of a cluster member (#27): `tern-launcher` with `cluster.url` runs its gateway as a member and reads
// the cluster's events. Two `tern gateway --cluster` members run one Telegram bot each; the dashboard's machines page,
// its event log and its turn view show both, each naming its gateway, in headless Chromium. A process that runs no
// gateway reads the same cluster log with `tern log`, `tern inspect` and `tern replay` and sees both members' events,
// actors and turns, each naming the gateway that wrote it: one set of members for both kinds of view.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { NatsConnection } from '@nats-io/transport-node';
import type { Browser, Page } from 'playwright-core';
import * as assert from 'uvu/assert';
import type { Envelope } from '../../bus/index.js';
import type { Actor } from '../../bus/api-shapes.js';
import { connectCluster } from '../../store/cluster/connection.js';
import { ClusterLogView } from '../../store/log/cluster-view.js';
import { call } from '../launcher/launcher-harness.js';
import { launchChromium, watchViolations } from '../support/browser.js';
import { runCliAsync } from '../support/cli.js';
import { leasesOf, logged, memberConfig, telegramAccounts } from '../support/cluster-gateways.js';
import { until } from '../support/eventually.js';
import { startDashboard, type Dashboard } from '../support/dashboard-harness.js';
import { startGatewayModel, type GatewayModel } from '../support/gateway-model.js';
import { startGatewayProcess, type GatewayProcess } from '../support/gateway-process.js';
import { natsSuite } from '../support/nats-server.js';
import { TelegramEmulator } from '../support/telegram-emulator.js';
import { tempHome, type TempHome } from '../support/temp-home.js';
import { buildBundle, open, shot, signedIn } from '../dashboard/browser-session.js';

buildBundle();

const TOKENS = ['761111:dash-bot-one-AAAA', '772222:dash-bot-two-BBBB'];
const ACCOUNTS = ['tg1', 'tg2'];
const USERS = [7101, 7102];

interface Context {
  model?: GatewayModel;
  emulator?: TelegramEmulator;
  gateways: GatewayProcess[];
  nc?: NatsConnection;
  dashboard?: Dashboard;
  browser?: Browser;
  holders: Record<string, string>;
  log?: ClusterLogView;
  /** A home with only `cluster.url` in its config: the process that runs no gateway. */
  reader?: TempHome;
}

const { test, suite, after } = natsSuite<Context>('the dashboard of a cluster member shows every gateway');

const get = async <T>(dashboard: Dashboard, path: string): Promise<T> =>
  (await call(dashboard.launcher, path, { cookie: dashboard.cookie })).body as T;

suite.before(async (context) => {
  context.gateways = [];
  context.model = await startGatewayModel();
  context.emulator = await TelegramEmulator.start(undefined, { offsets: true });
  const channels = telegramAccounts(ACCOUNTS, TOKENS, context.emulator.url);
  for (const id of ['node-a', 'node-b'])
    context.gateways.push(
      await startGatewayProcess(
        await memberConfig({ url: context.server.url, id, modelUrl: context.model.url, channels }),
      ),
    );
  context.nc = await connectCluster(context.server.url);
  const held = await until(
    'each member to run one bot',
    async () => {
      const leases = await leasesOf(context.nc!, 'channel');
      return new Set(leases.map((l) => l.gateway)).size === 2 ? leases : undefined;
    },
    60_000,
    () => leasesOf(context.nc!, 'channel'),
  );
  context.holders = Object.fromEntries(held.map((l) => [l.id, l.gateway]));
  // The members ran before the dashboard started: what they did is in the cluster's streams, read when it opens.
  context.dashboard = await startDashboard({ cluster: { url: context.server.url, id: 'dash', lease_ttl_ms: 5_000 } });
  context.browser = await launchChromium();
  // The turns come after: the dashboard hears of them as they happen.
  for (const [i, token] of TOKENS.entries())
    await context.emulator.say(token, `hello ${ACCOUNTS[i]}`, { userId: USERS[i] });
  for (const [i, token] of TOKENS.entries()) await context.emulator.waitForBotMessages(token, USERS[i]!, 1, 60_000);
  context.log = await ClusterLogView.open(context.nc);
  // Both replies are delivered in the cluster log before the reader reads it.
  await logged(context.log, { type: 'reply.delivered' }, (events) => events.length === 2, 30_000);
  context.reader = tempHome();
  writeFileSync(
    join(context.reader.home, 'config.json'),
    JSON.stringify({ version: 2, cluster: { url: context.server.url } }),
  );
});

after(async (context) => {
  context.log?.close();
  context.reader?.remove();
  await context.browser?.close();
  await context.dashboard?.close();
  await context.nc?.close();
  for (const gateway of context.gateways) await gateway.stop();
  await context.emulator?.stop();
  await context.model?.close();
  for (const gateway of context.gateways) gateway.home.remove();
});

/** A signed-in page, failing the test on a script error or a CSP violation. */
async function page(context: Context): Promise<{ page: Page; problems: string[] }> {
  const opened = await (await signedIn(context.browser!, context.dashboard!)).newPage();
  return { page: opened, problems: watchViolations(opened) };
}

test(
  "/api/actors lists every gateway's actors, each with its gateway, " +
    'its stream and a key that /api/actors/:key answers',
  async ({ dashboard, holders }) => {
    const actors = await until(
      "both bots' channels and the turns on the board",
      async () => {
        const listed = (await get<{ actors: Actor[] }>(dashboard!, '/api/actors')).actors;
        return listed.filter((a) => a.machine === 'turn' && a.state === 'done').length === 2 ? listed : undefined;
      },
      30_000,
      async () => (await get<{ actors: Actor[] }>(dashboard!, '/api/actors')).actors.map((a) => a.key),
    );
    const shown = actors
      .filter((a) => a.machine === 'gateway' || a.machine === 'channel')
      .map((a) => [a.gateway, a.stream, a.actor, a.key, a.state])
      .sort();
    assert.equal(
      shown,
      [
        ['dash', 'TERN_GW_dash', 'channel:web', 'channel:web@TERN_GW_dash', 'connected'],
        ['dash', 'TERN_GW_dash', 'gateway', 'gateway@TERN_GW_dash', 'running'],
        ...ACCOUNTS.flatMap((a) => [
          [holders[a], `TERN_CH_${a}`, `channel:${a}`, `channel:${a}@TERN_CH_${a}`, 'connected'],
          [holders[a], `TERN_CH_${a}`, 'gateway', `gateway@TERN_CH_${a}`, 'running'],
        ]),
        ['node-a', 'TERN_GW_node-a', 'gateway', 'gateway@TERN_GW_node-a', 'running'],
        ['node-b', 'TERN_GW_node-b', 'gateway', 'gateway@TERN_GW_node-b', 'running'],
      ].sort(),
    );
    const one = await get<Actor & { history: unknown[] }>(dashboard!, `/api/actors/channel:tg2@TERN_CH_tg2`);
    assert.equal([one.actor, one.gateway, one.state], ['channel:tg2', holders.tg2, 'connected']);
  },
);

test(
  'the machines page draws a tree per gateway and stream, headed by the gateway, ' +
    "with each bot's channel under its member and its turn in the finished list",
  async (context) => {
    const { holders } = context;
    const { page: machines, problems } = await page(context);
    // Live actors are cards; each bot's turn has ended, so it is a row of the finished turns, not a card.
    await open(machines, context.dashboard!, 'machines', `#finished-turns li:nth-child(${ACCOUNTS.length})`);
    assert.equal(
      (await machines.locator('#finished-turns li .turn-link').allTextContents()).sort(),
      ACCOUNTS.map((account) => `“hello ${account}”`).sort(),
    );
    for (const account of ACCOUNTS) {
      const section = `section.cluster-stream[data-gateway="${holders[account]}"][data-stream="TERN_CH_${account}"]`;
      assert.is(
        await machines.textContent(`${section} > h2.cluster-head`),
        `${holders[account]} · channel account ${account}`,
      );
      assert.is(await machines.getAttribute(`${section} [data-actor="channel:${account}"]`, 'data-state'), 'connected');
      assert.is(await machines.locator(`${section} [data-machine="turn"]`).count(), 0);
    }
    for (const node of ['node-a', 'node-b', 'dash']) {
      assert.is(
        await machines.textContent(`section.cluster-stream[data-stream="TERN_GW_${node}"] > h2.cluster-head`),
        `${node} · the member itself`,
      );
      assert.is(
        await machines.getAttribute(
          `section.cluster-stream[data-stream="TERN_GW_${node}"] [data-actor="gateway"]`,
          'data-state',
        ),
        'running',
      );
    }
    await shot(machines, 'cluster-machines');
    await machines.click(
      `section.cluster-stream[data-stream="TERN_CH_tg1"] [data-actor="channel:tg1"] .card-links a:has-text("history")`,
    );
    await machines.waitForSelector('#actor-detail[data-key="channel:tg1@TERN_CH_tg1"]');
    assert.is(await machines.textContent('#actor-detail .detail-gateway'), `on ${holders.tg1}`);
    assert.equal(problems, [], 'no script errors and no CSP violations');
  },
);

test('the event log and the turn view name the gateway that wrote each event', async (context) => {
  const { holders, dashboard } = context;
  const received = (
    await get<{ events: Array<Envelope<'message.received'>> }>(dashboard!, '/api/events?type=message.received')
  ).events;
  assert.equal(
    received.map((e) => [e.data.channel, e.gateway, e.stream]).sort(),
    ACCOUNTS.map((a) => [a, holders[a], `TERN_CH_${a}`]),
  );
  const { page: view, problems } = await page(context);
  await open(view, dashboard!, 'events', '.event-row .event-gateway');
  const gateways = await view.locator('.event-row.message .event-gateway').allTextContents();
  assert.ok(
    ACCOUNTS.every((a) => gateways.includes(holders[a]!)),
    `the event rows name ${JSON.stringify(holders)}: ${JSON.stringify(gateways)}`,
  );
  const started = (
    await get<{ events: Array<Envelope<'turn.started'>> }>(dashboard!, '/api/events?type=turn.started')
  ).events.find((e) => e.data.text === 'hello tg2')!;
  await open(view, dashboard!, `turn/${started.turn}`, '#turn-facts');
  const facts = await view.locator('#turn-facts .stat').allTextContents();
  assert.ok(facts.includes(`gateway${holders.tg2}`), JSON.stringify(facts));
  assert.equal(problems, [], 'no script errors and no CSP violations');
});

test(
  "tern log (cluster.url in the config) prints both members' events, " + 'each line naming the gateway that wrote it',
  async ({ reader, holders }) => {
    const result = await runCliAsync(['log', '--type', 'message.received'], reader!.env);
    assert.is(result.code, 0, result.stderr);
    const lines = result.stdout.trimEnd().split('\n');
    // seq, time, gateway, type, agent session turn, data
    const fields = lines.map((line) => line.trim().split(/ {2,}/));
    // The data is cut at 160 characters: its start names the channel.
    assert.equal(fields.map((f) => [f[2], f[3], f[4], /^\{"channel":"(tg\d)"/.exec(f[5]!)?.[1]]).sort(), [
      [holders.tg1, 'message.received', '- - -', 'tg1'],
      [holders.tg2, 'message.received', '- - -', 'tg2'],
    ]);
    assert.ok(Number(fields[0]![0]) < Number(fields[1]![0]), "the lines are in the cluster log's order");
  },
);

test(
  'tern log --cluster URL --json from a home with no cluster in its config: ' +
    'each event has its gateway and stream, numbered in the cluster log',
  async ({ server, holders }) => {
    const plain = tempHome();
    try {
      const result = await runCliAsync(
        ['log', '--cluster', server.url, '--type', 'turn.completed', '--json'],
        plain.env,
      );
      assert.is(result.code, 0, result.stderr);
      const events = result.stdout
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line) as Envelope<'turn.completed'>);
      assert.equal(events.map((e) => [e.gateway, e.stream, e.data.reply]).sort(), [
        [holders.tg1, 'TERN_CH_tg1', 'echo: hello tg1'],
        [holders.tg2, 'TERN_CH_tg2', 'echo: hello tg2'],
      ]);
      assert.ok(events[0]!.seq < events[1]!.seq);
    } finally {
      plain.remove();
    }
  },
);

test(
  "tern inspect shows each member's live actors under a " + 'heading naming the gateway and the stream it runs them on',
  async ({ reader, holders }) => {
    const text = await runCliAsync(['inspect'], reader!.env);
    assert.is(text.code, 0, text.stderr);
    const lines = text.stdout.trimEnd().split('\n');
    const headings = lines.filter((line) => line !== '' && !line.startsWith(' '));
    // The dashboard's launcher is a member too: its own stream, no bot.
    assert.equal(headings, [
      "dash  member's own (TERN_GW_dash)",
      ...['node-a', 'node-b'].flatMap((node) => [
        ...ACCOUNTS.filter((a) => holders[a] === node).map((a) => `${node}  channel account ${a} (TERN_CH_${a})`),
        `${node}  member's own (TERN_GW_${node})`,
      ]),
    ]);
    for (const account of ACCOUNTS) {
      const at = lines.indexOf(`${holders[account]}  channel account ${account} (TERN_CH_${account})`);
      const block = lines.slice(at + 1, lines.indexOf('', at) === -1 ? undefined : lines.indexOf('', at));
      assert.ok(
        block.some(
          (line) => /^ {2}channel:\S+\s+channel\s+connected\s/.test(line) && line.includes(`channel:${account}`),
        ),
        `the ${account} block lists its channel connected:\n${block.join('\n')}`,
      );
    }
    const json = await runCliAsync(['inspect', '--json'], reader!.env);
    const { actors } = JSON.parse(json.stdout) as {
      actors: Array<{ actor: string; machine: string; state: string; gateway: string; stream: string }>;
    };
    const shown = actors
      .filter((a) => a.machine === 'channel' || a.machine === 'gateway')
      .map((a) => [a.gateway, a.stream, a.actor, a.state])
      .sort();
    assert.equal(
      shown,
      [
        ...ACCOUNTS.map((a) => [holders[a], `TERN_CH_${a}`, `channel:${a}`, 'connected']),
        ...ACCOUNTS.map((a) => [holders[a], `TERN_CH_${a}`, 'gateway', 'running']),
        ['dash', 'TERN_GW_dash', 'channel:web', 'connected'],
        ['dash', 'TERN_GW_dash', 'gateway', 'running'],
        ['node-a', 'TERN_GW_node-a', 'gateway', 'running'],
        ['node-b', 'TERN_GW_node-b', 'gateway', 'running'],
      ].sort(),
    );
  },
);

test('tern replay shows a turn another member ran, saying which gateway ran it', async ({ reader, holders, log }) => {
  const started = log!
    .read({ type: 'turn.started' })
    .find((e) => e.type === 'turn.started' && e.data.text === 'hello tg2')!;
  const result = await runCliAsync(['replay', started.turn!], reader!.env);
  assert.is(result.code, 0, result.stderr);
  const lines = result.stdout.trimEnd().split('\n');
  assert.is(lines[0], `gateway: ${holders.tg2}`);
  assert.match(
    lines[1]!,
    new RegExp(`^\\+ +0 ms {2}turn\\.started {8}telegram direct:${USERS[1]} said: hello tg2$`),
    result.stdout,
  );
  assert.ok(
    lines.some((line) => /turn\.completed +reply: echo: hello tg2$/.test(line)),
    result.stdout,
  );
});

suite.run();
