import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { logFailingNotice } from '../../actors/gateway/inbound.js';
import { EventLog } from '../../store/log/event-log.js';
import { runCliAsync } from '../support/cli.js';
import { quietGateway } from '../support/quiet.js';
import { startGatewayModel, type GatewayModel } from '../support/gateway-model.js';
import { modelEntry, startGatewayProcess, type GatewayProcess } from '../support/gateway-process.js';
import { mountSmallDisk, type SmallDisk } from '../support/small-disk.js';
import { freePort, TelegramEmulator } from '../support/telegram-emulator.js';
import { tempHome, type TempHome } from '../support/temp-home.js';

const TOKEN = '777777:disk-full-bot-token-DDDD';
const LOG_FAILING_NOTICE = logFailingNotice('disk_full', true);
const CHATS = 24;
/** Messages per chat before the disk fills, while it is full, and after space is back: 24 × 10 = 240. */
const BEFORE = 4;
const DURING = 3;
const AFTER = 3;

interface Context {
  model?: GatewayModel;
  emulator?: TelegramEmulator;
  gateway?: GatewayProcess;
  home?: TempHome;
  disk?: SmallDisk;
}

const test = suite<Context>('a gateway whose disk fills up');

test.after.each(async (context) => {
  await context.gateway?.stop().catch(() => undefined);
  await context.emulator?.stop();
  await context.model?.close();
  context.disk?.unmount();
  context.home?.remove();
});

const chatOf = (i: number): number => 6000 + i;

async function sayRound(emulator: TelegramEmulator, from: number, count: number): Promise<void> {
  for (let n = from; n < from + count; n++) {
    for (let chat = 0; chat < CHATS; chat++) await emulator.say(TOKEN, `m${chat}-${n}`, { userId: chatOf(chat) });
  }
}

const answers = (emulator: TelegramEmulator, chat: number): string[] =>
  emulator
    .botMessages(TOKEN, chatOf(chat))
    .map((m) => m.text)
    .filter((text) => text !== LOG_FAILING_NOTICE);

async function allAnswered(emulator: TelegramEmulator, count: number, gateway: GatewayProcess, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const counts = Array.from({ length: CHATS }, (_, chat) => answers(emulator, chat).length);
    const short = counts.filter((n) => n < count).length;
    if (short === 0) return;
    if (Date.now() > deadline) {
      const total = counts.reduce((a, b) => a + b, 0);
      const said = gateway.stderr().slice(-3000);
      throw new Error(`${short} chats have fewer than ${count} answers (${total} in all); the gateway said: ${said}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

test('240 messages across a disk-full outage: the gateway runs on, says why, answers each once', async (context) => {
  context.home = tempHome();
  context.disk = mountSmallDisk(context.home.home, 64);
  context.model = await startGatewayModel();
  context.emulator = await TelegramEmulator.start(undefined, { offsets: true });
  const { emulator } = context;
  const settings = {
    gateway: { host: '127.0.0.1', port: await freePort() },
    agents: { defaults: { model: 'fast' } },
    model_list: [modelEntry(context.model.url)],
    heartbeat: { enabled: false },
    channel_list: {
      telegram: {
        enabled: true,
        settings: { token: TOKEN, base_url: emulator.url, poll_timeout_seconds: 1, allow_from: ['*'] },
      },
    },
  };
  const gateway = await startGatewayProcess(settings, {}, context.home);
  context.gateway = gateway;
  await sayRound(emulator, 0, BEFORE);
  await allAnswered(emulator, BEFORE, gateway, 60_000);

  context.disk.fill();
  await sayRound(emulator, BEFORE, DURING);
  // The log cannot write: /ready says so, and so does `tern status`.
  let ready: Awaited<ReturnType<GatewayProcess['ready']>> | undefined;
  const deadline = Date.now() + 30_000;
  for (;;) {
    ready = await gateway.ready().catch(() => undefined);
    if (ready?.status === 503) break;
    if (Date.now() > deadline || gateway.child.exitCode !== null) {
      throw new Error(`/ready never said the log fails: ${JSON.stringify(ready)} ${gateway.stderr()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const body = ready.body as unknown as { status: string; log: { state: string; code: string; reason: string } };
  assert.is(body.status, 'degraded');
  assert.equal([body.log.state, body.log.code], ['failing', 'disk_full']);
  assert.match(body.log.reason, /^the disk holding .*sessions is full/);
  // `tern status` leaves the log out when /ready takes over 2 s to answer, as a gateway answering 240 chats on a
  // loaded machine may: asked again until it answers in time.
  type Shown = { gateway: { up: boolean; log?: { state: string; code: string } } };
  let shown: Shown | undefined;
  for (const end = Date.now() + 60_000; shown?.gateway.log === undefined && Date.now() < end; ) {
    const status = await runCliAsync(['status', '--json'], context.home.env);
    assert.is(status.code, 0, status.stderr);
    shown = JSON.parse(status.stdout) as Shown;
  }
  assert.equal(
    [shown?.gateway.up, shown?.gateway.log?.state, shown?.gateway.log?.code],
    [true, 'failing', 'disk_full'],
  );
  // Each chat that wrote during the outage is told why it gets no answer yet.
  const deadlineNotice = Date.now() + 30_000;
  for (;;) {
    const noticesIn = (chat: number): number =>
      emulator.botMessages(TOKEN, chatOf(chat)).filter((m) => m.text === LOG_FAILING_NOTICE).length;
    const told = Array.from({ length: CHATS }, (_, chat) => noticesIn(chat));
    if (told.every((n) => n >= 1)) break;
    if (Date.now() > deadlineNotice) {
      throw new Error(`chats told of the outage: ${JSON.stringify(told)}; ${gateway.stderr()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.is(gateway.child.exitCode, null, 'the gateway is still running');

  context.disk.free();
  await sayRound(emulator, BEFORE + DURING, AFTER);
  await allAnswered(emulator, BEFORE + DURING + AFTER, gateway, 120_000);
  // No second answer comes once the gateway has gone quiet.
  const all = Array.from({ length: CHATS }, (_, chat) => chat);
  const answered = await quietGateway(context.home.sessions, () => all.map((chat) => answers(emulator, chat)));
  for (const chat of all) {
    const want = Array.from({ length: BEFORE + DURING + AFTER }, (_, n) => `echo: m${chat}-${n}`);
    assert.equal(answered[chat], want, `chat ${chat}`);
  }
  const after = await gateway.ready();
  assert.is(after.status, 200);
  assert.is(await gateway.stop(), 0);
  // Every message is in the log once, and so is the outage, in its place.
  const log = EventLog.open(context.home.sessions, { readOnly: true });
  try {
    const received = log
      .read({ type: 'message.received' })
      .flatMap((e) => (e.type === 'message.received' ? [e.data.message_id] : []));
    const all = CHATS * (BEFORE + DURING + AFTER);
    assert.equal([received.length, new Set(received).size], [all, all]);
    const outage = log
      .read({ type: 'log.*' })
      .map((e) => (e.type === 'log.failed' ? `${e.type} ${e.data.code}` : e.type));
    assert.equal(outage, ['log.failed disk_full', 'log.recovered']);
  } finally {
    log.close();
  }
});

test.run();
