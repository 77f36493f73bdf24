import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { RESTART_NOTICE } from '../../actors/recovery.js';
import type { Envelope } from '../../bus/index.js';
import { EventLog } from '../../store/log/event-log.js';
import type { LogQuery } from '../../store/log/event-store.js';
import { logLines } from '../support/clocked-gateway.js';
import { until } from '../support/eventually.js';
import { startGatewayModel, type GatewayModel } from '../support/gateway-model.js';
import { modelEntry, startGatewayProcess, type GatewayProcess } from '../support/gateway-process.js';
import { logWatch, quietGateway } from '../support/quiet.js';
import { watchSends } from '../support/send-requests.js';
import { freePort, TelegramEmulator } from '../support/telegram-emulator.js';
import type { TempHome } from '../support/temp-home.js';

const TOKEN = '888888:crash-bot-token-FFFF';
/** Enough chats that the kill lands with many turns and replies under way at once. */
const CHATS = 20;
const PER_CHAT = 6;

interface Context {
  model: GatewayModel;
  emulator: TelegramEmulator;
  gateway?: GatewayProcess;
  home?: TempHome;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function config(
  model: GatewayModel,
  emulator: TelegramEmulator,
  streaming = false,
  placeholder?: string,
): Promise<Record<string, unknown>> {
  return {
    gateway: { host: '127.0.0.1', port: await freePort() },
    agents: { defaults: { model: 'fast' } },
    model_list: [modelEntry(model.url, streaming)],
    heartbeat: { enabled: false },
    channel_list: {
      telegram: {
        enabled: true,
        settings: {
          token: TOKEN,
          base_url: emulator.url,
          poll_timeout_seconds: 1,
          allow_from: ['*'],
          ...(placeholder ? { placeholder } : {}),
          ...(streaming ? { streaming: { enabled: true, throttle_seconds: 0, min_growth_chars: 1 } } : {}),
        },
      },
    },
  };
}

/** The events of the log of a gateway's home, read from beside it (the gateway may be running or dead). */
function logged(home: TempHome, query: LogQuery = {}): Envelope[] {
  const log = EventLog.open(home.sessions, { readOnly: true });
  try {
    return log.read(query);
  } finally {
    log.close();
  }
}

/**
 * Waits until `check` holds on the events `query` picks from the log of a running gateway. One reader stays open while
 * it waits (opening lmdb is what a read costs), so the wait takes little of the CPU the gateway under test needs.
 */
async function untilLogged(
  home: TempHome,
  query: LogQuery,
  check: (events: Envelope[]) => boolean,
  what: string,
  gateway?: GatewayProcess,
): Promise<void> {
  // A gateway started from the sources compiles them first: on a loaded machine that alone can take half a minute.
  const deadline = Date.now() + 60_000;
  const watch = logWatch(home.sessions);
  try {
    while (!check(watch.read(query))) {
      if (Date.now() > deadline)
        throw new Error(`timed out waiting for ${what}${gateway ? `; the gateway said: ${gateway.stderr()}` : ''}`);
      await sleep(20);
    }
  } finally {
    watch.close();
  }
}

/**
 * The model, the emulator and the gateway that will be killed, on a fresh home; the context ends them after the test.
 */
async function firstRun(
  context: Context,
  options: { model?: { delayMs?: number }; streaming?: boolean; placeholder?: string } = {},
): Promise<{ settings: Record<string, unknown>; first: GatewayProcess }> {
  context.model = await startGatewayModel(options.model);
  context.emulator = await TelegramEmulator.start(undefined, { offsets: true });
  const settings = await config(context.model, context.emulator, options.streaming, options.placeholder);
  const first = await startGatewayProcess(settings);
  context.gateway = first;
  context.home = first.home;
  return { settings, first };
}

const texts = (emulator: TelegramEmulator, chat: number): string[] =>
  emulator.botMessages(TOKEN, chat).map((m) => m.text);

const test = suite<Context>('tern gateway killed with SIGKILL under load, then started again');

test.after.each(async (context) => {
  await context.gateway?.stop();
  await context.emulator?.stop();
  await context.model?.close();
  context.home?.remove();
});

test('120 messages from 20 chats, killed mid-run: after a restart each is answered once, in order', async (context) => {
  const { settings, first } = await firstRun(context, { model: { delayMs: 300 } });
  const sends = watchSends(context.emulator);
  for (let i = 0; i < PER_CHAT; i++) {
    for (let chat = 0; chat < CHATS; chat++)
      await context.emulator.say(TOKEN, `m${chat}-${i}`, { userId: 4000 + chat });
  }
  // Killed under load: once the first replies went out, with most still to come.
  await untilLogged(first.home, { type: 'message.sent' }, (events) => events.length > 0, 'the first reply', first);
  await first.kill();
  // The parts the killed gateway may have sent: the restart does not send them again.
  const journal = readFileSync(join(first.home.sessions, 'sending.journal'), 'utf8').split('\n').filter(Boolean);
  const answeredBefore = Array.from({ length: CHATS }, (_, chat) => texts(context.emulator, 4000 + chat).length).reduce(
    (a, b) => a + b,
    0,
  );
  context.gateway = await startGatewayProcess(settings, {}, first.home);
  const restarted = context.gateway;
  try {
    for (let chat = 0; chat < CHATS; chat++)
      await context.emulator.waitForBotMessages(TOKEN, 4000 + chat, PER_CHAT, 60_000);
  } catch (error) {
    const answered = Array.from({ length: CHATS }, (_, chat) => texts(context.emulator, 4000 + chat).length).reduce(
      (a, b) => a + b,
      0,
    );
    const counts = new Map<string, number>();
    for (const e of logged(first.home)) counts.set(e.type, (counts.get(e.type) ?? 0) + 1);
    // A flake once had 22 parts in doubt that never reached the chat: what the emulator saw of each, for the next one.
    const sent = new Set(logged(first.home).flatMap((e) => (e.type === 'message.sent' ? [e.data.send_key] : [])));
    const doubt = journal.filter((key) => !sent.has(key)).map((key) => key.split(':')[1]!);
    const views = doubt.map((chat) => `${chat}: ${sends.filter((s) => s.chat === chat).map((s) => s.outcome)}`);
    throw new Error(
      `${(error as Error).message}; answered ${answeredBefore} before the kill and ${answered} in all; ` +
        `the log: ${JSON.stringify(Object.fromEntries(counts))}; in doubt after the kill, with the emulator's ` +
        `sends to their chats: ${views.join('; ')}; the gateway said: ${restarted.stderr().slice(-2000)}`,
    );
  }
  const chats = () => Array.from({ length: CHATS }, (_, chat) => texts(context.emulator, 4000 + chat));
  const answered = await quietGateway(first.home.sessions, chats);
  for (let chat = 0; chat < CHATS; chat++) {
    const got = answered[chat];
    const want = Array.from({ length: PER_CHAT }, (_, i) => `echo: m${chat}-${i}`);
    assert.equal(got, want, `chat ${chat}`);
  }
  const events = logged(first.home);
  const accepted = events.flatMap((e) => (e.type === 'message.received' ? [e.data.message_id] : []));
  assert.equal(
    [accepted.length, new Set(accepted).size],
    [CHATS * PER_CHAT, CHATS * PER_CHAT],
    'every message accepted once',
  );
  assert.ok(
    answeredBefore < CHATS * PER_CHAT,
    `the kill came before everything was answered (answered: ${answeredBefore})`,
  );
});

test(
  'killed the moment a reply part is in the log as being sent but has not reached Telegram: ' +
    'after the restart that part is sent, once',
  async (context) => {
    const { settings, first } = await firstRun(context, { model: { delayMs: 300 } });
    const perChat = 2;
    for (let i = 0; i < perChat; i++) {
      for (let chat = 0; chat < CHATS; chat++)
        await context.emulator.say(TOKEN, `m${chat}-${i}`, { userId: 4000 + chat });
    }
    // Watches the log from beside the gateway and kills it as soon as a part's `message.sending` is there while the
    // emulator has nothing in that chat yet: under a burst of first replies that moment lasts tens of milliseconds. On
    // a machine so loaded that the moment passes unseen, the kill comes once every chat has its first reply (the rest
    // is then still a check of exactly once across a kill).
    const deadline = Date.now() + 30_000;
    let waiting: string[] = [];
    const firstReplies = (): number =>
      Array.from({ length: CHATS }, (_, chat) => texts(context.emulator, 4000 + chat).length).filter((n) => n > 0)
        .length;
    // One reader, kept open, and a read every 2 ms: far shorter than the moment, and the gateway keeps its CPU.
    const watch = logWatch(first.home.sessions);
    try {
      while (waiting.length === 0 && firstReplies() < CHATS) {
        if (Date.now() > deadline) throw new Error(`no reply within 30 s; the gateway said: ${first.stderr()}`);
        const intents = watch.read({ type: 'message.sending' });
        waiting = intents.flatMap((e) =>
          e.type === 'message.sending' && texts(context.emulator, Number(/(\d+)$/.exec(e.data.chat)![1])).length === 0
            ? [e.data.send_key]
            : [],
        );
        await sleep(2);
      }
    } finally {
      watch.close();
    }
    await first.kill();
    context.gateway = await startGatewayProcess(settings, {}, first.home);
    for (let chat = 0; chat < CHATS; chat++)
      await context.emulator.waitForBotMessages(TOKEN, 4000 + chat, perChat, 60_000);
    const chats = () => Array.from({ length: CHATS }, (_, chat) => texts(context.emulator, 4000 + chat));
    const answered = await quietGateway(first.home.sessions, chats);
    for (let chat = 0; chat < CHATS; chat++) {
      const want = Array.from({ length: perChat }, (_, i) => `echo: m${chat}-${i}`);
      assert.equal(answered[chat], want, `chat ${chat} (killed with ${waiting.join(', ')} in the log only)`);
    }
  },
);

test('a turn killed after its tool ran is not run again: the user gets the restart notice instead', async (context) => {
  const { settings, first } = await firstRun(context);
  await context.emulator.say(TOKEN, 'PLAN buy milk', { userId: 5001 });
  await untilLogged(first.home, { type: 'tool.completed' }, (events) => events.length > 0, 'the tool to run', first);
  // Killed while the model works on the tool's result (it answers 5 s after it was asked).
  const asked = () => context.model.asked.filter((text) => text.includes('PLAN')).length;
  await until('the model to be asked with the result', () => (asked() === 2 ? true : undefined), 20_000);
  await first.kill();
  // Nothing reached the chat before the kill; the restarted gateway may send its notice before /ready answers.
  assert.equal(texts(context.emulator, 5001).length, 0);
  context.gateway = await startGatewayProcess(settings, {}, first.home);
  await context.emulator.waitForBotMessages(TOKEN, 5001, 1, 20_000);
  assert.equal(await quietGateway(first.home.sessions, () => texts(context.emulator, 5001)), [RESTART_NOTICE]);
  const events = logged(first.home);
  assert.is(events.filter((e) => e.type === 'tool.requested').length, 1, 'the tool ran once');
  assert.is(asked(), 2, 'the model was not asked again');
  const turn = events.find((e) => e.type === 'tool.requested')!.turn;
  assert.equal(
    events
      .filter((e) => e.turn === turn && (e.type.startsWith('turn.') || e.type === 'reply.requested'))
      .map((e) => e.type),
    ['turn.started', 'turn.aborted', 'reply.requested'],
  );
});

test(
  'a streamed reply cut off in the middle is finished ' + 'with the restart notice, in the same message',
  async (context) => {
    const { settings, first } = await firstRun(context, { streaming: true });
    const said = 'DRIP one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen';
    const full = `echo: ${said}`;
    await context.emulator.say(TOKEN, said, { userId: 5002 });
    await untilLogged(
      first.home,
      { type: 'message.edited' },
      (events) => events.length >= 2,
      'the stream to show a few words',
    );
    await first.kill();
    const cut = texts(context.emulator, 5002);
    assert.is(cut.length, 1);
    assert.ok(!cut[0]!.endsWith('fifteen'), `the stream was cut: ${cut[0]}`);
    context.gateway = await startGatewayProcess(settings, {}, first.home);
    const noticed = () => (texts(context.emulator, 5002)[0]?.endsWith(RESTART_NOTICE) ? true : undefined);
    await until('the restart notice', noticed, 20_000);
    const shown = await quietGateway(first.home.sessions, () => texts(context.emulator, 5002));
    assert.is(shown.length, 1, 'no second message');
    const [shownBefore = '', after] = shown[0]!.split('\n\n');
    assert.is(after, RESTART_NOTICE);
    assert.ok(
      shownBefore.startsWith('echo: DRIP') && full.startsWith(shownBefore) && shownBefore.length < full.length,
      `the text shown before the cut, then the notice: ${shown[0]}`,
    );
    assert.is(context.model.asked.filter((text) => text.includes('DRIP')).length, 1, 'the model was not asked again');
  },
);

test(
  'a part the platform got but never confirmed before the crash is not sent again: ' +
    'the restart says so in the gateway log',
  async (context) => {
    const { settings, first } = await firstRun(context);
    const held = context.emulator.holdAnswers('sendMessage');
    await context.emulator.say(TOKEN, 'hello', { userId: 5003 });
    await context.emulator.waitForBotMessages(TOKEN, 5003, 1, 20_000);
    await first.kill();
    held.release();
    const sendKey = logged(first.home).find((e) => e.type === 'message.sending')?.data.send_key;
    assert.ok(sendKey, 'the intent to send was in the log before the part went out');
    assert.not.ok(
      logged(first.home).some((e) => e.type === 'message.sent'),
      'the answer of the send never came back',
    );
    context.gateway = await startGatewayProcess(settings, {}, first.home);
    await context.emulator.say(TOKEN, 'again', { userId: 5003 });
    await context.emulator.waitForBotMessages(TOKEN, 5003, 2, 20_000);
    const shown = await quietGateway(first.home.sessions, () => texts(context.emulator, 5003));
    assert.equal(shown, ['echo: hello', 'echo: again']);
    assert.ok(
      logLines(join(first.home.home, 'logs', 'gateway.log')).includes(
        'WARN a reply part was being sent when the process ended: it is not sent again and ' +
          `may be missing from the chat channel=telegram chat=direct:5003 send_key=${sendKey}`,
      ),
      'the gateway log names the unconfirmed part',
    );
  },
);

test(
  'a placeholder shown before the crash is replaced by the ' +
    'reply of the turn run again, not left beside a second one',
  async (context) => {
    const { settings, first } = await firstRun(context, { model: { delayMs: 1500 }, placeholder: 'Thinking…' });
    await context.emulator.say(TOKEN, 'hello', { userId: 5004 });
    await context.emulator.waitForBotMessages(TOKEN, 5004, 1, 20_000);
    await untilLogged(
      first.home,
      {},
      (events) =>
        events.some((e) => e.type === 'message.sent' && e.data.send_key.endsWith(':placeholder')) &&
        events.some((e) => e.type === 'turn.started'),
      'the placeholder and the turn',
      first,
    );
    await first.kill();
    assert.equal(texts(context.emulator, 5004), ['Thinking…']);
    context.gateway = await startGatewayProcess(settings, {}, first.home);
    await until('the reply', () => (texts(context.emulator, 5004)[0] === 'echo: hello' ? true : undefined), 20_000);
    assert.equal(await quietGateway(first.home.sessions, () => texts(context.emulator, 5004)), ['echo: hello']);
  },
);

test.run();
