// Three `tern gateway` processes in one cluster on a real nats-server -js, three Telegram bots on the emulator, a
// model answering in 300 ms; the gateway running one bot is killed with SIGKILL in the middle of the work.
import * as assert from 'uvu/assert';
import { connectCluster } from '../../store/cluster/connection.js';
import { Leases, type LeaseRecord } from '../../store/cluster/leases.js';
import { startGatewayModel, type GatewayModel } from '../support/gateway-model.js';
import { modelEntry, startGatewayProcess, type GatewayProcess } from '../support/gateway-process.js';
import { natsSuite } from '../support/nats-server.js';
import { freePort, TelegramEmulator } from '../support/telegram-emulator.js';

const TOKENS = ['711111:cluster-bot-one-AAAA', '722222:cluster-bot-two-BBBB', '733333:cluster-bot-three-CCCC'];
const ACCOUNTS = ['tg1', 'tg2', 'tg3'];
const CHATS = Number(process.env.FAILOVER_CHATS ?? 100);
const PER_CHAT = 6;
const TTL_MS = 5_000;

interface Context {
  model?: GatewayModel;
  emulator?: TelegramEmulator;
  gateways: GatewayProcess[];
}

const { test, suite } = natsSuite<Context>('a cluster of three gateways, one killed with SIGKILL under load');
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

suite.before.each((context) => {
  context.gateways = [];
});

suite.after.each(async (context) => {
  for (const gateway of context.gateways) if (gateway.child.exitCode === null && gateway.child.signalCode === null) await gateway.stop();
  await context.emulator?.stop();
  await context.model?.close();
  for (const gateway of context.gateways) gateway.home.remove();
});

/** The bot (index into TOKENS) a chat talks to, and its Telegram user id. */
const botOf = (chat: number): number => chat % TOKENS.length;
const userOf = (chat: number): number => 6000 + chat;

test('600 messages from 100 chats: every one answered exactly once and in order, the dead gateway\'s bot taken over within 10 s', async (context) => {
  const { server } = context;
  context.model = await startGatewayModel({ delayMs: 300 });
  context.emulator = await TelegramEmulator.start(undefined, { offsets: true });
  const channelList = Object.fromEntries(ACCOUNTS.map((name, i) => [name, { enabled: true, type: 'telegram', settings: { token: TOKENS[i], base_url: context.emulator!.url, poll_timeout_seconds: 1 } }]));
  for (const id of ['node-a', 'node-b', 'node-c']) {
    const config = {
      gateway: { host: '127.0.0.1', port: await freePort() },
      cluster: { url: server.url, id, lease_ttl_ms: TTL_MS },
      agents: { defaults: { model: 'fast' } },
      model_list: [modelEntry(context.model.url)],
      heartbeat: { enabled: false },
      channel_list: channelList,
    };
    context.gateways.push(await startGatewayProcess(config));
  }
  const nc = await connectCluster(server.url);
  const observer = await Leases.open(nc, { gateway: 'test-observer', ttlMs: TTL_MS });
  const held = async (): Promise<LeaseRecord[]> => (await observer.list()).filter((l) => l.kind === 'channel');
  try {
    // Each gateway takes one bot (its fair share).
    const deadline = Date.now() + 30_000;
    while (new Set((await held()).map((l) => l.gateway)).size < 3) {
      if (Date.now() > deadline) throw new Error(`the bots were not spread over the three gateways: ${JSON.stringify(await held())}`);
      await sleep(100);
    }
    const before = await held();
    const started = Date.now();
    for (let i = 0; i < PER_CHAT; i++) {
      for (let chat = 0; chat < CHATS; chat++) await context.emulator.say(TOKENS[botOf(chat)]!, `m${chat}-${i}`, { userId: userOf(chat) });
    }
    const answered = (chat: number): number => context.emulator!.botMessages(TOKENS[botOf(chat)]!, userOf(chat)).length;
    const answeredOnTg1 = (): number => Array.from({ length: CHATS }, (_, chat) => (botOf(chat) === 0 ? answered(chat) : 0)).reduce((a, b) => a + b, 0);
    // Killed mid-run: once its bot has answered a tenth of its chats' messages.
    while (answeredOnTg1() < (CHATS * PER_CHAT) / 30) {
      if (Date.now() - started > 120_000) throw new Error(`the bot tg1 answered only ${answeredOnTg1()} messages in 2 minutes`);
      await sleep(10);
    }
    const victim = before.find((l) => l.id === 'tg1')!.gateway;
    const index = ['node-a', 'node-b', 'node-c'].indexOf(victim);
    await context.gateways[index]!.kill();
    const killedAt = Date.now();
    const answeredAtKill = Array.from({ length: CHATS }, (_, chat) => answered(chat)).reduce((a, b) => a + b, 0);
    const tg1AtKill = answeredOnTg1();
    let takenOverMs: number | undefined;
    while (takenOverMs === undefined) {
      const now = (await held()).find((l) => l.id === 'tg1');
      if (now && now.gateway !== victim) takenOverMs = Date.now() - killedAt;
      else if (Date.now() - killedAt > 30_000) throw new Error('nobody took over the dead gateway\'s bot');
      else await sleep(50);
    }
    try {
      for (let chat = 0; chat < CHATS; chat++) await context.emulator.waitForBotMessages(TOKENS[botOf(chat)]!, userOf(chat), PER_CHAT, 240_000);
    } catch (error) {
      throw new Error(`${(error as Error).message}; the gateways said: ${context.gateways.map((g) => g.stderr()).join('\n---\n')}`);
    }
    await sleep(2_000);
    for (let chat = 0; chat < CHATS; chat++) {
      const got = context.emulator.botMessages(TOKENS[botOf(chat)]!, userOf(chat)).map((m) => m.text);
      assert.equal(got, Array.from({ length: PER_CHAT }, (_, i) => `echo: m${chat}-${i}`), `chat ${chat}`);
    }
    process.stderr.write(`failover: ${answeredAtKill} of ${CHATS * PER_CHAT} answered at the kill (${tg1AtKill} by the killed gateway's bot), bot taken over after ${takenOverMs} ms, all answered ${Date.now() - killedAt} ms after the kill\n`);
    assert.ok(tg1AtKill < (CHATS * PER_CHAT) / 3, `the kill came before the bot had answered everything (answered: ${tg1AtKill})`);
    assert.ok(takenOverMs < 10_000, `the bot was taken over after ${takenOverMs} ms`);
  } finally {
    observer.abandon();
    await nc.close();
  }
});

suite.run();
