// Three `tern gateway` processes in one cluster on a real nats-server -js, three Telegram bots on the emulator, a
// model answering in 300 ms; the gateway running one bot is killed with SIGKILL in the middle of the work, at a moment
// when every chat of its bot has a reply part handed to Telegram and no answer back (the emulator holds the answers):
// the cut the intent record (`message.sending`) is for.
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import { connectCluster } from '../../store/cluster/connection.js';
import type { LeaseRecord } from '../../store/cluster/leases.js';
import { accountLog } from '../../store/cluster/stream-names.js';
import type { NatsConnection } from '@nats-io/transport-node';
import { JetStreamEventStore } from '../../store/log/jetstream-store.js';
import { logLines } from '../support/clocked-gateway.js';
import { startGatewayModel, type GatewayModel } from '../support/gateway-model.js';
import { leasesOf, memberConfig, telegramAccounts } from '../support/cluster-gateways.js';
import { startGatewayProcess, type GatewayProcess } from '../support/gateway-process.js';
import { natsSuite } from '../support/nats-server.js';
import { TelegramEmulator } from '../support/telegram-emulator.js';

const TOKENS = ['711111:cluster-bot-one-AAAA', '722222:cluster-bot-two-BBBB', '733333:cluster-bot-three-CCCC'];
const ACCOUNTS = ['tg1', 'tg2', 'tg3'];
// Ten chats a bot: the killed gateway's bot still has parts out in several chats at once. Four messages a chat: the
// kill lands after the bot's first few answers, with most of each chat still to come. FAILOVER_CHATS=100
// FAILOVER_PER_CHAT=6 runs the load of 600 messages this test was first written with.
const CHATS = Number(process.env.FAILOVER_CHATS ?? 30);
const PER_CHAT = Number(process.env.FAILOVER_PER_CHAT ?? 4);
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
  for (const gateway of context.gateways) await gateway.stop();
  await context.emulator?.stop();
  await context.model?.close();
  // FAILOVER_KEEP=<dir>: each run's gateway logs are kept there (a red run of the loop is traced from them).
  const keep = process.env.FAILOVER_KEEP;
  const into = keep && join(keep, `failover-${new Date().toISOString().replace(/[:.]/g, '-')}`);
  for (const [i, gateway] of context.gateways.entries()) {
    if (into) cpSync(join(gateway.home.home, 'logs'), join(into, `gateway-${i}`), { recursive: true });
    gateway.home.remove();
  }
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
    for (const e of log.iterate({
      type:
        'message.received,message.routed,turn.started,turn.completed,turn.aborted,reply.requested,message.sending,' +
        'message.sent,message.undelivered,reply.delivered,runtime.started',
    })) {
      const data = e.data as {
        chat?: string;
        reply?: { chat: string };
        message_id?: string;
        key?: string;
        send_key?: string;
        text?: string;
      };
      const about = data.chat ?? data.reply?.chat;
      if (
        e.type !== 'runtime.started' &&
        about !== id &&
        !(e.type.startsWith('turn.') && lines.some((l) => e.turn && l.includes(e.turn)))
      )
        continue;
      lines.push(
        `${e.seq} ${e.gateway ?? '?'} ${e.at - killedAt}ms ${e.type} ${data.message_id ?? ''} ` +
          `${data.key ?? data.send_key ?? ''} ${e.turn ?? ''} ${JSON.stringify(data.text ?? '')}`,
      );
    }
    return lines.join('\n');
  } finally {
    log.close();
  }
}

/**
 * The account's stream once every message of its chats has its reply delivered (so no send is still to come): the
 * parts a gateway other than the heir intended and that nobody recorded as sent (by send key: the ones that had left
 * and got no answer), those the heir sent in their place (they never left), and the send keys with a `message.sent`,
 * each with how many.
 */
async function settledSends(
  nc: NatsConnection,
  account: string,
  messages: number,
  heir: string | undefined,
  timeoutMs: number,
): Promise<{ unconfirmed: Set<string>; resent: Set<string>; sent: Map<string, number>; tally: string }> {
  const log = await JetStreamEventStore.open(nc, { ...accountLog(account), readOnly: true });
  try {
    const deadline = Date.now() + timeoutMs;
    const delivered = (): number =>
      new Set(
        log
          .read({ type: 'reply.delivered' })
          .map((e) => `${e.session}\u0000${(e.data as { message_id: string }).message_id}`),
      ).size;
    while (delivered() < messages) {
      if (Date.now() > deadline)
        throw new Error(
          `the stream of ${account} shows ${delivered()} of ${messages} replies delivered after ${timeoutMs} ms`,
        );
      await sleep(100);
    }
    const unconfirmed = new Set<string>();
    const resent = new Set<string>();
    const sent = new Map<string, number>();
    const counts = new Map<string, number>();
    for (const e of log.iterate({ type: 'message.sending,message.sent,runtime.started' })) {
      const where = `${e.type} by ${e.gateway}`;
      counts.set(where, (counts.get(where) ?? 0) + 1);
      if (e.type === 'runtime.started') continue;
      const key = (e.data as { send_key: string }).send_key;
      if (e.type === 'message.sending' && e.gateway !== heir) unconfirmed.add(key);
      if (e.type === 'message.sent') {
        sent.set(key, (sent.get(key) ?? 0) + 1);
        if (e.gateway === heir && unconfirmed.has(key)) resent.add(key);
        unconfirmed.delete(key);
      }
    }
    return { unconfirmed, resent, sent, tally: JSON.stringify(Object.fromEntries(counts)) };
  } finally {
    log.close();
  }
}

/** The bot (index into TOKENS) a chat talks to, and its Telegram user id. */
const botOf = (chat: number): number => chat % TOKENS.length;
const userOf = (chat: number): number => 6000 + chat;

test(
  `${CHATS * PER_CHAT} messages from ${CHATS} chats: every one answered exactly once and in order, ` +
    `the dead gateway's bot taken over within 10 s, the parts it had handed to Telegram not sent again`,
  async (context) => {
    const { server } = context;
    context.model = await startGatewayModel({ delayMs: 300 });
    context.emulator = await TelegramEmulator.start(undefined, { offsets: true });
    const channels = telegramAccounts(ACCOUNTS, TOKENS, context.emulator.url);
    const ids = ['node-a', 'node-b', 'node-c'];
    for (const id of ids)
      context.gateways.push(
        await startGatewayProcess(
          await memberConfig({ url: server.url, id, modelUrl: context.model.url, channels, ttlMs: TTL_MS }),
        ),
      );
    const nc = await connectCluster(server.url);
    const held = (): Promise<LeaseRecord[]> => leasesOf(nc, 'channel');
    try {
      // Each gateway takes one bot (its fair share).
      const deadline = Date.now() + 60_000;
      while (new Set((await held()).map((l) => l.gateway)).size < 3) {
        if (Date.now() > deadline)
          throw new Error(`the bots were not spread over the three gateways: ${JSON.stringify(await held())}`);
        await sleep(100);
      }
      const started = Date.now();
      for (let i = 0; i < PER_CHAT; i++) {
        for (let chat = 0; chat < CHATS; chat++)
          await context.emulator.say(TOKENS[botOf(chat)]!, `m${chat}-${i}`, { userId: userOf(chat) });
      }
      const answered = (chat: number): number =>
        context.emulator!.botMessages(TOKENS[botOf(chat)]!, userOf(chat)).length;
      const tg1Chats = Array.from({ length: CHATS }, (_, chat) => chat).filter((chat) => botOf(chat) === 0);
      const answeredOnTg1 = (): number => tg1Chats.reduce((sum, chat) => sum + answered(chat), 0);
      // Mid-run (once its bot has answered a tenth of its chats' messages), Telegram stops answering the bot's sends:
      // each chat's next part reaches the chat and the gateway never hears so. Each chat has one part in flight at
      // most.
      while (answeredOnTg1() < (CHATS * PER_CHAT) / 30) {
        if (Date.now() - started > 180_000)
          throw new Error(`the bot tg1 answered only ${answeredOnTg1()} messages in 3 minutes`);
        await sleep(10);
      }
      const hold = context.emulator.holdAnswers('sendMessage', TOKENS[0]);
      const unfinished = tg1Chats.filter((chat) => answered(chat) < PER_CHAT).length;
      // Killed once every unfinished chat of the bot has its part out and unanswered: the sends a kill cuts.
      while (hold.held() < unfinished) {
        if (Date.now() - started > 240_000)
          throw new Error(`only ${hold.held()} of ${unfinished} chats had a part out when the wait ended`);
        await sleep(10);
      }
      // The member whose parts are out: the writer of the newest intent in the bot's stream. Not simply the lease's
      // holder: on a loaded machine a member that stalled past the TTL loses the lease and finishes its turns while the
      // next holder is still opening the stream (two runs of twenty killed that one, with no part out).
      const tg1Log = await JetStreamEventStore.open(nc, { ...accountLog('tg1'), readOnly: true });
      const victim = tg1Log.read({ type: 'message.sending', order: 'desc', limit: 1 })[0]?.gateway;
      tg1Log.close();
      if (victim === undefined) throw new Error('no part of tg1 was intended when the parts were out');
      const heldAtKill = hold.held();
      await context.gateways[ids.indexOf(victim)]!.kill();
      const killedAt = Date.now();
      hold.release();
      const tg1AtKill = answeredOnTg1();
      let takenOverMs: number | undefined;
      let heir: string | undefined;
      while (takenOverMs === undefined) {
        const now = (await held()).find((l) => l.id === 'tg1');
        if (now && now.gateway !== victim) [takenOverMs, heir] = [Date.now() - killedAt, now.gateway];
        else if (Date.now() - killedAt > 60_000) throw new Error("nobody took over the dead gateway's bot");
        else await sleep(50);
      }
      for (let chat = 0; chat < CHATS; chat++) {
        try {
          await context.emulator.waitForBotMessages(TOKENS[botOf(chat)]!, userOf(chat), PER_CHAT, 240_000);
        } catch (error) {
          const story = await storyOf(nc, ACCOUNTS[botOf(chat)]!, chat, killedAt);
          throw new Error(
            `${(error as Error).message} (${victim} killed; ` +
              `taken over by ${heir} after ${takenOverMs} ms); its account's stream says:\n${story}`,
          );
        }
      }
      const allAnsweredMs = Date.now() - killedAt;
      // Nothing is left to send once every message's reply is delivered in its account's stream: what the chats show
      // then is final.
      const chatsOf = (account: number): number =>
        Array.from({ length: CHATS }, (_, chat) => chat).filter((chat) => botOf(chat) === account).length;
      const streams = await Promise.all(
        ACCOUNTS.map((account, i) =>
          settledSends(nc, account, chatsOf(i) * PER_CHAT, i === 0 ? heir : undefined, 120_000),
        ),
      );
      for (let chat = 0; chat < CHATS; chat++) {
        const got = context.emulator.botMessages(TOKENS[botOf(chat)]!, userOf(chat));
        const expected = Array.from({ length: PER_CHAT }, (_, i) => `echo: m${chat}-${i}`);
        if (JSON.stringify(got.map((m) => m.text)) !== JSON.stringify(expected)) {
          const sends = got.map((m) => `${m.messageId} at ${m.at - killedAt}ms ${m.text}`);
          const story =
            `${await storyOf(nc, ACCOUNTS[botOf(chat)]!, chat, killedAt)}\n` + `the emulator got: ${sends.join('; ')}`;
          assert.equal(
            got.map((m) => m.text),
            expected,
            `chat ${chat} (${victim} killed; taken over by ${heir} after ${takenOverMs} ms); ` +
              `its account's stream says:\n${story}\n`,
          );
        }
      }
      const { unconfirmed, resent, sent, tally } = streams[0]!;
      process.stderr.write(
        `failover: ${tg1AtKill} of ${tg1Chats.length * PER_CHAT} answered by the killed gateway's bot at the kill, ` +
          `${unconfirmed.size} part(s) out and unconfirmed, ${resent.size} never sent and sent by the heir, ` +
          `bot taken over by ${heir} after ${takenOverMs} ms, all answered ${allAnsweredMs} ms after the kill\n`,
      );
      // The cut parts are the intents in the stream that had left and that nobody recorded as sent (the answers
      // Telegram held, and any that came back too late for the killed member to record): none was sent again, and the
      // new holder's log names each. An intent that had not left was sent by the heir, once. (Not one cut part per
      // unfinished chat: under load one run had 20 cut and 14 sent by the heir for 34 held answers.)
      assert.ok(
        unconfirmed.size > 0,
        `no part was out and unconfirmed at the kill (${unfinished} unfinished chats, ` +
          `${heldAtKill} held, ${victim} killed): ${tally}`,
      );
      for (const [key, times] of sent) assert.is(times, 1, `${key} recorded as sent ${times} times`);
      // Every run of the account on the heir counts: a run that another writer fenced (a member that stalled wrote on)
      // named the cut parts at its start and delivered their replies, so the run after the fence has nothing to name.
      const heirLog = logLines(join(context.gateways[ids.indexOf(heir!)]!.home.home, 'logs', 'gateway.log'));
      const warned = heirLog.filter((line) =>
        line.startsWith(
          'WARN a reply part was being sent when the process ended: ' +
            'it is not sent again and may be missing from the chat channel=tg1 ',
        ),
      );
      // Each cut part is named. The heir may name more: parts cut when it held the bot before (members move bots
      // while one stalls under load), which its log kept.
      const named = new Set(warned.map((line) => /send_key=(\S+)/.exec(line)![1]));
      assert.equal(
        [...unconfirmed].filter((key) => !named.has(key)),
        [],
        'cut parts the heir did not name',
      );
      assert.ok(takenOverMs < 10_000, `the bot was taken over after ${takenOverMs} ms`);
    } catch (error) {
      // uvu runs `after.each` in its catch and reports only the teardown's error when that fails too (a gateway that
      // did not stop): the test's own is written first.
      process.stderr.write(`failover: the test failed: ${(error as Error)?.stack ?? String(error)}\n`);
      throw error;
    } finally {
      await nc.close();
    }
  },
);

suite.run();
