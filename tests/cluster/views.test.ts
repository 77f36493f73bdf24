// Cluster-wide views (#27): two `tern gateway --cluster` members each running one Telegram bot; a third process that
// runs no gateway reads the cluster log with `tern log`, `tern inspect` and `tern replay` and sees both members'
// events, actors and turns, each naming the gateway that wrote it.
import type { NatsConnection } from '@nats-io/transport-node';
import * as assert from 'uvu/assert';
import type { Envelope } from '../../bus/index.js';
import { connectCluster } from '../../store/cluster/connection.js';
import { ClusterLogView } from '../../store/log/cluster-view.js';
import { runCliAsync } from '../support/cli.js';
import { leasesOf, logged, memberConfig, telegramAccounts } from '../support/cluster-gateways.js';
import { until } from '../support/eventually.js';
import { startGatewayModel, type GatewayModel } from '../support/gateway-model.js';
import { startGatewayProcess, type GatewayProcess } from '../support/gateway-process.js';
import { natsSuite } from '../support/nats-server.js';
import { TelegramEmulator } from '../support/telegram-emulator.js';
import { tempHome, type TempHome } from '../support/temp-home.js';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

const TOKENS = ['741111:views-bot-one-AAAA', '752222:views-bot-two-BBBB'];
const ACCOUNTS = ['tg1', 'tg2'];
const USERS = [7001, 7002];

interface Context {
  model?: GatewayModel;
  emulator?: TelegramEmulator;
  gateways: GatewayProcess[];
  nc?: NatsConnection;
  log?: ClusterLogView;
  /** The member running each account. */
  holders: Record<string, string>;
  /** A home with only `cluster.url` in its config: the third process. */
  reader?: TempHome;
}

const { test, suite, after } = natsSuite<Context>('cluster-wide views from a process that runs no gateway');

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
      const channelLeases = await leasesOf(context.nc!, 'channel');
      return new Set(channelLeases.map((l) => l.gateway)).size === 2 ? channelLeases : undefined;
    },
    60_000,
    () => leasesOf(context.nc!, 'channel'),
  );
  context.holders = Object.fromEntries(held.map((l) => [l.id, l.gateway]));
  for (const [i, token] of TOKENS.entries())
    await context.emulator.say(token, `hello ${ACCOUNTS[i]}`, { userId: USERS[i] });
  for (const [i, token] of TOKENS.entries()) await context.emulator.waitForBotMessages(token, USERS[i]!, 1, 60_000);
  context.log = await ClusterLogView.open(context.nc);
  // Both replies are delivered in the cluster log before the third process reads it.
  await logged(context.log, { type: 'reply.delivered' }, (events) => events.length === 2, 30_000);
  context.reader = tempHome();
  writeFileSync(
    join(context.reader.home, 'config.json'),
    JSON.stringify({ version: 2, cluster: { url: context.server.url } }),
  );
});

after(async (context) => {
  context.log?.close();
  await context.nc?.close();
  for (const gateway of context.gateways) await gateway.stop();
  await context.emulator?.stop();
  await context.model?.close();
  for (const gateway of context.gateways) gateway.home.remove();
  context.reader?.remove();
});

test("tern log (cluster.url in the config) prints both members' events, each line naming the gateway that wrote it", async ({
  reader,
  holders,
}) => {
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
});

test('tern log --cluster URL --json from a home with no cluster in its config: each event has its gateway and stream, numbered in the cluster log', async ({
  server,
  holders,
}) => {
  const plain = tempHome();
  try {
    const result = await runCliAsync(['log', '--cluster', server.url, '--type', 'turn.completed', '--json'], plain.env);
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
});

test("tern inspect shows each member's live actors under a heading naming the gateway and the stream it runs them on", async ({
  reader,
  holders,
}) => {
  const text = await runCliAsync(['inspect'], reader!.env);
  assert.is(text.code, 0, text.stderr);
  const lines = text.stdout.trimEnd().split('\n');
  const headings = lines.filter((line) => line !== '' && !line.startsWith(' '));
  assert.equal(headings, [
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
      ['node-a', 'TERN_GW_node-a', 'gateway', 'running'],
      ['node-b', 'TERN_GW_node-b', 'gateway', 'running'],
    ].sort(),
  );
});

test('tern replay shows a turn another member ran, saying which gateway ran it', async ({ reader, holders, log }) => {
  const started = log!
    .read({ type: 'turn.started' })
    .find((e) => e.type === 'turn.started' && e.data.text === 'hello tg2')!;
  const result = await runCliAsync(['replay', started.turn!], reader!.env);
  assert.is(result.code, 0, result.stderr);
  const lines = result.stdout.trimEnd().split('\n');
  assert.is(lines[0], `gateway: ${holders.tg2}`);
  assert.match(lines[1]!, /^\+ +0 ms {2}turn\.started {8}telegram direct:7002 said: hello tg2$/, result.stdout);
  assert.ok(
    lines.some((line) => /turn\.completed +reply: echo: hello tg2$/.test(line)),
    result.stdout,
  );
});

suite.run();
