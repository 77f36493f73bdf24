// The cluster's NATS server down for longer than a member's log used to wait (60 s, #27): the member keeps retrying,
// says so in gateway.log (WARN while cut off, INFO once back), and once the server is back it answers the message that
// came meanwhile, once, and goes on answering.
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import { connectCluster } from '../../store/cluster/connection.js';
import { memberLog } from '../../store/cluster/stream-names.js';
import { JetStreamEventStore } from '../../store/log/jetstream-store.js';
import { logLines } from '../support/clocked-gateway.js';
import { memberConfig, telegramAccounts } from '../support/cluster-gateways.js';
import { startGatewayModel, type GatewayModel } from '../support/gateway-model.js';
import { startGatewayProcess, type GatewayProcess } from '../support/gateway-process.js';
import { natsSuite } from '../support/nats-server.js';
import { quietValue } from '../support/quiet.js';
import { TelegramEmulator } from '../support/telegram-emulator.js';

const TOKEN = '823333:outage-bot-AAAA';
const USER = 7401;
/** Longer than the 60 s the log used to give a write before failing for good. */
const DOWN_MS = 75_000;

interface Context {
  model?: GatewayModel;
  emulator?: TelegramEmulator;
  gateway?: GatewayProcess;
}

const { test, suite, after } = natsSuite<Context>("the cluster's NATS server down for over a minute");
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

after(async (context) => {
  await context.gateway?.stop();
  await context.emulator?.stop();
  await context.model?.close();
  context.gateway?.home.remove();
});

test(
  'a member waits out the outage, logs it, ' + 'and answers the message that came meanwhile once the server is back',
  async (context) => {
    const { server } = context;
    context.model = await startGatewayModel();
    const emulator = (context.emulator = await TelegramEmulator.start(undefined, { offsets: true }));
    context.gateway = await startGatewayProcess(
      await memberConfig({
        url: server.url,
        id: 'node-a',
        modelUrl: context.model.url,
        channels: telegramAccounts(['tg1'], [TOKEN], emulator.url),
      }),
    );
    await emulator.say(TOKEN, 'before', { userId: USER });
    await emulator.waitForBotMessages(TOKEN, USER, 1, 60_000);

    await server.stop();
    await emulator.say(TOKEN, 'during', { userId: USER });
    // The outage itself: how long the server stays away is what this test is about.
    await sleep(DOWN_MS);
    assert.equal(
      emulator.botMessages(TOKEN, USER).map((m) => m.text),
      ['echo: before'],
      'nothing is answered while the log cannot store it',
    );
    await server.restart();
    const restartedAt = Date.now();
    await emulator.waitForBotMessages(TOKEN, USER, 2, 120_000);
    await emulator.say(TOKEN, 'after', { userId: USER });
    await emulator.waitForBotMessages(TOKEN, USER, 3, 60_000);
    const answered = await quietValue(() => emulator.botMessages(TOKEN, USER).map((m) => m.text), { quietMs: 2_000 });
    assert.equal(answered, ['echo: before', 'echo: during', 'echo: after']);

    const lines = logLines(join(context.gateway.home.home, 'logs', 'gateway.log'));
    const lost = lines.findIndex((line) =>
      line.startsWith('WARN cluster: lost the connection to NATS; reconnecting, and the log waits for it'),
    );
    const still = lines.findIndex((line) =>
      line.startsWith('WARN cluster: still no connection to NATS; reconnecting down_s='),
    );
    const back = lines.findIndex((line) => line.startsWith('INFO cluster: connected to NATS again'));
    assert.ok(
      lost >= 0 && still > lost && back > still,
      `gateway.log says:\n${lines.filter((l) => l.includes('NATS')).join('\n')}`,
    );
    assert.is(lines.filter((line) => line.includes('log_write_failed')).length, 0, 'no write failed for good');
    const downS = Number(/down_s=(\d+)/.exec(lines[back]!)?.[1]);
    assert.ok(downS >= DOWN_MS / 1000 - 5, `the INFO line says the connection was down ${downS} s`);
    // The member's own stream takes writes again too: stopped now, the member records leaving in it.
    assert.is(await context.gateway.stop(), 0);
    const nc = await connectCluster(server.url);
    const own = await JetStreamEventStore.open(nc, { ...memberLog('node-a'), readOnly: true });
    try {
      const left = own.read({ type: 'cluster.member.left', since: restartedAt }).map((e) => e.data);
      assert.equal(left, [{ gateway: 'node-a', reason: 'stopped', by: 'node-a' }]);
    } finally {
      own.close();
      await nc.close();
    }
  },
);

suite.run();
