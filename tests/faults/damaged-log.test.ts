import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { logFailingNotice } from '../../actors/gateway/inbound.js';
import { validateDraft } from '../../bus/index.js';
import { EventLog } from '../../store/log/event-log.js';
import { runCliAsync } from '../support/cli.js';
import { until } from '../support/eventually.js';
import { startGatewayModel, type GatewayModel } from '../support/gateway-model.js';
import { modelEntry, startGatewayProcess, type GatewayProcess } from '../support/gateway-process.js';
import { freePort, TelegramEmulator } from '../support/telegram-emulator.js';
import { tempHome, type TempHome } from '../support/temp-home.js';

const TOKEN = '777777:damaged-log-bot-token-EEEE';
const CHAT = 7100;
const PAGE = 4096;
const EARLIER = 2000;
const DAMAGED_NOTICE = logFailingNotice('damaged', true);

interface Context {
  model?: GatewayModel;
  emulator?: TelegramEmulator;
  gateway?: GatewayProcess;
  home?: TempHome;
}

const test = suite<Context>('a gateway whose event log is damaged');

test.after.each(async (context) => {
  await context.gateway?.stop().catch(() => undefined);
  await context.emulator?.stop();
  await context.model?.close();
  context.home?.remove();
});

test(
  'a damaged index page: the chat is told, /ready says damaged; ' + 'after salvage every message is answered',
  async (context) => {
    const home = tempHome();
    context.home = home;
    // An earlier life of the log, with sessions of its own, whose session index leaf a disk error then zeroes: the page
    // that names them and holds no event (found by its bytes, not through lmdb).
    mkdirSync(home.sessions, { recursive: true });
    const earlier = EventLog.open(home.sessions);
    for (let seq = 1; seq <= EARLIER; seq++) {
      const session = `old-session-${seq % 3}`;
      earlier.append(validateDraft({ type: 'provider.chunk', session, data: { kind: 'text', delta: `old ${seq}` } }));
    }
    await earlier.flushed();
    earlier.close();
    const file = readFileSync(join(home.sessions, 'data.mdb'));
    let page = 2;
    for (; page * PAGE < file.length; page++) {
      const bytes = file.subarray(page * PAGE, (page + 1) * PAGE);
      // Not the table of names (events name their session by number): it holds their type too.
      if (bytes.includes('old-session-1') && !bytes.includes('old ') && !bytes.includes('provider.chunk')) break;
    }
    assert.ok(page * PAGE < file.length, 'the session index page is found');
    file.fill(0, page * PAGE, (page + 1) * PAGE);
    writeFileSync(join(home.sessions, 'data.mdb'), file);

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
    const gateway = await startGatewayProcess(settings, {}, home);
    context.gateway = gateway;
    for (let n = 0; n < 3; n++) await emulator.say(TOKEN, `m${n}`, { userId: CHAT });

    const ready = await until(
      '/ready to say the log is damaged',
      async () => {
        const answer = await gateway.ready().catch(() => undefined);
        return answer?.status === 503 ? answer : undefined;
      },
      30_000,
    );
    const body = ready.body as unknown as { status: string; log: { state: string; code: string; reason: string } };
    assert.equal([body.status, body.log.state, body.log.code], ['degraded', 'failing', 'damaged']);
    assert.match(body.log.reason, `the event log in ${home.sessions} is damaged (MDB_`);
    assert.match(body.log.reason, 'run `tern log verify` to see what is damaged, then `tern log salvage`');
    await until(
      'the chat to be told',
      () => (emulator.botMessages(TOKEN, CHAT).some((m) => m.text === DAMAGED_NOTICE) ? true : undefined),
      30_000,
    );
    const status = await runCliAsync(['status', '--json'], home.env);
    const shown = JSON.parse(status.stdout) as { gateway: { up: boolean; log: { state: string; code: string } } };
    assert.equal([shown.gateway.up, shown.gateway.log.state, shown.gateway.log.code], [true, 'failing', 'damaged']);
    assert.is(gateway.child.exitCode, null, 'the gateway is still running');
    // Killed, as a process on a failing disk often ends: a stop would wait out the whole drain (10 s), since no reply
    // can go out while nothing can be written to the log. Salvage then works on the log as the disk left it.
    await gateway.kill();
    context.gateway = undefined;

    const verify = await runCliAsync(['log', 'verify'], home.env);
    assert.is(verify.code, 1);
    assert.match(verify.stdout, `problem    the by_session index: page ${page} holds something else`);
    const salvage = await runCliAsync(['log', 'salvage', '--json'], home.env);
    assert.is(salvage.code, 0, salvage.stderr);
    const saved = JSON.parse(salvage.stdout) as { saved: number; lost: number };
    assert.is(saved.lost, 0);
    assert.ok(saved.saved >= EARLIER, `saved ${saved.saved}`);

    // Telegram was never told the three messages were received: it hands them over again, and each is answered once.
    context.gateway = await startGatewayProcess(settings, {}, home);
    const answers = (): string[] =>
      emulator
        .botMessages(TOKEN, CHAT)
        .map((m) => m.text)
        .filter((t) => t !== DAMAGED_NOTICE);
    await until('three answers', () => (answers().length >= 3 ? true : undefined), 60_000);
    assert.equal(answers(), ['echo: m0', 'echo: m1', 'echo: m2']);
    assert.is(await context.gateway.stop(), 0);
    context.gateway = undefined;
    const log = EventLog.open(home.sessions, { readOnly: true });
    try {
      assert.is(log.read({ type: 'message.received' }).length, 3);
      assert.is(log.read({ type: 'provider.chunk' }).length, EARLIER);
    } finally {
      log.close();
    }
  },
);

test.run();
