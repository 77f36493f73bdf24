// One busy bot across members (#40 item 2): two `tern gateway --cluster` processes with `cluster.session_partitions`
// on a real nats-server -js, one Telegram bot on the emulator, a model answering in 100 ms. The member holding the bot
// polls it and forwards each message to the member serving its session; that member's reply comes back through the
// delivery queue and goes out from the bot's holder. Then one member leaves and its sessions move to the other; a
// third joins, takes half of them, and is killed with SIGKILL.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { NatsConnection } from '@nats-io/transport-node';
import * as assert from 'uvu/assert';
import { connectCluster } from '../../store/cluster/connection.js';
import { ClusterLogView } from '../../store/log/cluster-view.js';
import { runCliAsync } from '../support/cli.js';
import { leasesOf, memberConfig, telegramAccounts } from '../support/cluster-gateways.js';
import { until } from '../support/eventually.js';
import { startGatewayModel, type GatewayModel } from '../support/gateway-model.js';
import { startGatewayProcess, type GatewayProcess } from '../support/gateway-process.js';
import { natsSuite, type NatsContext } from '../support/nats-server.js';
import { quietValue } from '../support/quiet.js';
import { TelegramEmulator } from '../support/telegram-emulator.js';
import { tempHome, type TempHome } from '../support/temp-home.js';

const TOKEN = '744444:one-busy-bot-DDDD';
/** Two chats a partition on average: both members serve some, and a leaving one hands several on. */
const CHATS = 8;
const PARTITIONS = 4;
const userOf = (chat: number): number => 7000 + chat;

interface Context {
  model?: GatewayModel;
  emulator?: TelegramEmulator;
  gateways: GatewayProcess[];
  nc?: NatsConnection;
  reader?: TempHome;
}

interface Share {
  account: string;
  gateway: string;
  partitions: number;
  sessions: number;
}

const { test, suite, after } = natsSuite<Context>('one bot served by two cluster members');

suite.before((context) => {
  context.gateways = [];
});

// The second test goes on from the member the first one leaves serving every session: one set of processes.
after(async (context) => {
  await context.nc?.close();
  for (const gateway of context.gateways) await gateway.stop();
  await context.emulator?.stop();
  await context.model?.close();
  for (const gateway of context.gateways) gateway.home.remove();
  context.reader?.remove();
});

/** What the cluster's log says about one chat's messages (a failure's message). */
async function storyOf(nc: NatsConnection, chat: number): Promise<string> {
  const view = await ClusterLogView.open(nc);
  try {
    // The story is told once the cluster's log stops growing: events on their way are in it.
    await quietValue(() => view.lastCommittedSeq(), { limitMs: 10_000 }).catch(() => undefined);
    const id = `direct:${userOf(chat)}`;
    return view
      .read({})
      .filter((e) => JSON.stringify(e.data).includes(id))
      .map((e) => `${e.gateway} ${e.stream} ${e.type} ${JSON.stringify(e.data).slice(0, 160)}`)
      .join('\n');
  } finally {
    view.close();
  }
}

/** Sends round `rounds - 1` to every chat; waits until each chat shows `rounds` answers, its echoes in order. */
async function answeredInOrder(emulator: TelegramEmulator, rounds: number, nc: NatsConnection): Promise<void> {
  const round = rounds - 1;
  for (let chat = 0; chat < CHATS; chat++) await emulator.say(TOKEN, `c${chat}-r${round}`, { userId: userOf(chat) });
  for (let chat = 0; chat < CHATS; chat++) await emulator.waitForBotMessages(TOKEN, userOf(chat), rounds, 120_000);
  for (let chat = 0; chat < CHATS; chat++) {
    const expected = Array.from({ length: rounds }, (_, r) => `echo: c${chat}-r${r}`);
    const got = emulator.botMessages(TOKEN, userOf(chat)).map((m) => m.text);
    if (JSON.stringify(got) !== JSON.stringify(expected)) process.stderr.write(`${await storyOf(nc, chat)}\n`);
    assert.equal(
      emulator.botMessages(TOKEN, userOf(chat)).map((m) => m.text),
      expected,
      `chat ${chat}`,
    );
  }
}

/** A member serving the bot's sessions in PARTITIONS partitions, on the suite's server, emulator and model. */
async function startMember(context: Context & NatsContext, id: string): Promise<GatewayProcess> {
  const { server, model, emulator } = context;
  const channels = telegramAccounts(['tg1'], [TOKEN], emulator!.url);
  const config = await memberConfig({ url: server.url, id, modelUrl: model!.url, channels });
  return startGatewayProcess({
    ...config,
    cluster: { url: server.url, id, lease_ttl_ms: 5_000, session_partitions: PARTITIONS },
  });
}

test(`${CHATS} chats, one bot: each answered once, in order, by both members; then one leaves`, async (context) => {
  const { server } = context;
  context.model = await startGatewayModel({ delayMs: 100 });
  context.emulator = await TelegramEmulator.start(undefined, { offsets: true });
  for (const id of ['node-a', 'node-b']) context.gateways.push(await startMember(context, id));
  const nc = (context.nc = await connectCluster(server.url));
  // Each member serves half the partitions of the bot's sessions.
  await until(
    'the partitions to be split evenly',
    async () => {
      const held = await leasesOf(nc, 'session');
      const of = (id: string): number => held.filter((l) => l.gateway === id).length;
      return of('node-a') === PARTITIONS / 2 && of('node-b') === PARTITIONS / 2 ? held : undefined;
    },
    60_000,
    () => leasesOf(nc, 'session'),
  );
  await answeredInOrder(context.emulator, 1, nc);
  await answeredInOrder(context.emulator, 2, nc);

  context.reader = tempHome();
  writeFileSync(join(context.reader.home, 'config.json'), JSON.stringify({ version: 2, cluster: { url: server.url } }));
  const status = async (): Promise<Share[]> => {
    const result = await runCliAsync(['cluster', 'status', '--json'], context.reader!.env);
    assert.is(result.code, 0, result.stderr);
    return (JSON.parse(result.stdout) as { sessions: Share[] }).sessions;
  };
  const split = await status();
  assert.equal(
    split.map((s) => [s.account, s.gateway, s.partitions]),
    [
      ['tg1', 'node-a', PARTITIONS / 2],
      ['tg1', 'node-b', PARTITIONS / 2],
    ],
  );
  assert.is(split[0]!.sessions + split[1]!.sessions, CHATS);
  assert.ok(
    split.every((s) => s.sessions > 0),
    JSON.stringify(split),
  );
  const text = await runCliAsync(['cluster', 'status'], context.reader.env);
  assert.ok(
    text.stdout.includes(
      `sessions of tg1: node-a serves ${split[0]!.sessions} in ${PARTITIONS / 2} partition(s), ` +
        `node-b serves ${split[1]!.sessions} in ${PARTITIONS / 2} partition(s)\n`,
    ),
    text.stdout,
  );

  // node-b leaves: its partitions (and the bot, if it held it) move to node-a, and every chat is answered again.
  await context.gateways[1]!.stop();
  await until(
    'node-a to serve every partition',
    async () =>
      (await leasesOf(nc, 'session')).filter((l) => l.gateway === 'node-a').length === PARTITIONS ? true : undefined,
    60_000,
    () => leasesOf(nc, 'session'),
  );
  await answeredInOrder(context.emulator, 3, nc);
  assert.equal(await status(), [{ account: 'tg1', gateway: 'node-a', partitions: PARTITIONS, sessions: CHATS }]);
});

test(
  'a member that joined killed with SIGKILL: ' + 'its partitions move, every chat answered once and in order',
  async (context) => {
    const emulator = context.emulator!;
    const nc = context.nc!;
    const joined = await startMember(context, 'node-c');
    context.gateways.push(joined);
    const served = async (id: string): Promise<number> =>
      (await leasesOf(nc, 'session')).filter((l) => l.gateway === id).length;
    await until(
      'node-a to hand node-c half the partitions',
      async () => ((await served('node-c')) === PARTITIONS / 2 ? true : undefined),
      60_000,
      () => leasesOf(nc, 'session'),
    );
    await answeredInOrder(emulator, 4, nc);
    // Killed while the next round is on its way: what node-c had taken in and not answered is run by node-a.
    for (let chat = 0; chat < CHATS; chat++) await emulator.say(TOKEN, `c${chat}-r4`, { userId: userOf(chat) });
    await joined.kill();
    await until(
      'node-a to serve every partition',
      async () => ((await served('node-a')) === PARTITIONS ? true : undefined),
      60_000,
    );
    for (let chat = 0; chat < CHATS; chat++) await emulator.waitForBotMessages(TOKEN, userOf(chat), 5, 120_000);
    await answeredInOrder(emulator, 6, nc);
  },
);

suite.run();
