// Three `tern gateway` processes in one cluster on a real nats-server -js, three Telegram bots on the emulator, a
// model answering in 300 ms; the gateway running one bot is killed with SIGKILL in the middle of the work.
import * as assert from 'uvu/assert';
import { connectCluster } from '../../store/cluster/connection.js';
import { Leases, type LeaseRecord } from '../../store/cluster/leases.js';
import { accountLog } from '../../actors/cluster/streams.js';
import type { NatsConnection } from '@nats-io/transport-node';
import { JetStreamEventStore } from '../../store/log/jetstream-store.js';
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

/**
 * What the account's stream says about one chat (a failure message): each message's receipt, reply and sends, with
 * the seq, the gateway that wrote it and its time relative to the kill.
 */
async function storyOf(nc: NatsConnection, account: string, chat: number, killedAt: number): Promise<string> {
  const log = await JetStreamEventStore.open(nc, { ...accountLog(account), readOnly: true });
  try {
    const id = `direct:${userOf(chat)}`;
    const lines: string[] = [];
    for (const e of log.iterate({ type: 'message.received,message.routed,turn.started,turn.completed,turn.aborted,reply.requested,message.sent,reply.delivered,runtime.started' })) {
      const data = e.data as { chat?: string; reply?: { chat: string }; message_id?: string; key?: string; send_key?: string; text?: string };
      const about = data.chat ?? data.reply?.chat;
      if (e.type !== 'runtime.started' && about !== id && !(e.type.startsWith('turn.') && lines.some((l) => e.turn && l.includes(e.turn)))) continue;
      lines.push(`${e.seq} ${e.gateway ?? '?'} ${e.at - killedAt}ms ${e.type} ${data.message_id ?? ''} ${data.key ?? data.send_key ?? ''} ${e.turn ?? ''} ${JSON.stringify(data.text ?? '')}`);
    }
    return lines.join('\n');
  } finally {
    log.close();
  }
}

/** Who recorded each send in an account's stream: `<chat>\0<text>` → the gateways whose `message.sent` says so. */
async function sendRecords(nc: NatsConnection, account: string): Promise<Map<string, string[]>> {
  const log = await JetStreamEventStore.open(nc, { ...accountLog(account), readOnly: true });
  try {
    const sentBy = new Map<string, string[]>();
    for (const e of log.iterate({ type: 'message.sent' })) {
      if (e.type !== 'message.sent') continue;
      const key = `${e.data.chat}\u0000${e.data.text}`;
      sentBy.set(key, [...(sentBy.get(key) ?? []), e.gateway ?? '?']);
    }
    return sentBy;
  } finally {
    log.close();
  }
}

/** A send the kill cut: the dead gateway never recorded it, and exactly one other gateway did (when it sent it again). */
function cutSend(sentBy: Map<string, string[]>, chat: string, text: string, victim: string): boolean {
  const by = sentBy.get(`${chat}\u0000${text}`) ?? [];
  return by.length === 1 && by[0] !== victim;
}

/** The bot (index into TOKENS) a chat talks to, and its Telegram user id. */
const botOf = (chat: number): number => chat % TOKENS.length;
const userOf = (chat: number): number => 6000 + chat;

test('600 messages from 100 chats: every one answered in order, once but for a send the kill cut (at most one per chat), the dead gateway\'s bot taken over within 10 s', async (context) => {
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
    const allAnsweredMs = Date.now() - killedAt;
    await sleep(2_000);
    const sentBy = await sendRecords(nc, 'tg1');
    let cut = 0;
    for (let chat = 0; chat < CHATS; chat++) {
      const got = context.emulator.botMessages(TOKENS[botOf(chat)]!, userOf(chat));
      const expected = Array.from({ length: PER_CHAT }, (_, i) => `echo: m${chat}-${i}`);
      // A part the dead gateway had sent and not yet recorded when it was killed is sent again by the new holder:
      // at most one per chat (the chat's next part waits for the record), and only one the stream shows unrecorded.
      const cutHere = got.filter((m, i) => i > 0 && m.text === got[i - 1]!.text && got[i - 1]!.at <= killedAt && botOf(chat) === 0 && cutSend(sentBy, `direct:${userOf(chat)}`, m.text, victim));
      const texts = got.filter((m) => !cutHere.includes(m)).map((m) => m.text);
      if (JSON.stringify(texts) !== JSON.stringify(expected) || cutHere.length > 1) {
        const sends = got.map((m) => `${m.messageId} at ${m.at - killedAt}ms ${m.text}`);
        const story = `${await storyOf(nc, ACCOUNTS[botOf(chat)]!, chat, killedAt)}\nthe emulator got: ${sends.join('; ')}`;
        assert.equal(got.map((m) => m.text), expected, `chat ${chat} (${victim} killed; taken over after ${takenOverMs} ms); its account's stream says:\n${story}\n`);
      }
      cut += cutHere.length;
    }
    process.stderr.write(`failover: ${answeredAtKill} of ${CHATS * PER_CHAT} answered at the kill (${tg1AtKill} by the killed gateway's bot), bot taken over after ${takenOverMs} ms, all answered ${allAnsweredMs} ms after the kill, ${cut} part(s) the kill cut sent again\n`);
    assert.ok(tg1AtKill < (CHATS * PER_CHAT) / 3, `the kill came before the bot had answered everything (answered: ${tg1AtKill})`);
    assert.ok(takenOverMs < 10_000, `the bot was taken over after ${takenOverMs} ms`);
  } finally {
    observer.abandon();
    await nc.close();
  }
});

suite.run();
