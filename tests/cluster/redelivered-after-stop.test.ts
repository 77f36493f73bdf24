// Issue #40: a member that stops (or dies) holding Telegram updates it had answered but not yet acknowledged (its next
// getUpdates never came) leaves them to be handed out again to the member taking the account over. A clean stop
// records a recovery checkpoint past those messages: the taker still knows them from the account's stream and drops
// the redelivery, so each is answered once (the CI failover run that answered "m1-0" twice).
import * as assert from 'uvu/assert';
import type { NatsConnection } from '@nats-io/transport-node';
import { connectCluster } from '../../store/cluster/connection.js';
import { accountLog } from '../../store/cluster/stream-names.js';
import { JetStreamEventStore } from '../../store/log/jetstream-store.js';
import { leasesOf, memberConfig, telegramAccounts } from '../support/cluster-gateways.js';
import { until } from '../support/eventually.js';
import { startGatewayModel, type GatewayModel } from '../support/gateway-model.js';
import { startGatewayProcess, type GatewayProcess } from '../support/gateway-process.js';
import { natsSuite } from '../support/nats-server.js';
import { TelegramEmulator } from '../support/telegram-emulator.js';

const TOKEN = '766666:redelivered-bot-FFFF';
const USER = 7201;

interface Context {
  model?: GatewayModel;
  emulator?: TelegramEmulator;
  members: GatewayProcess[];
  nc?: NatsConnection;
}

const { test, suite } = natsSuite<Context>('updates handed out again after the holder of their account stopped');

suite.before.each((context) => {
  context.members = [];
});

suite.after.each(async (context) => {
  for (const member of context.members) await member.stop();
  await context.nc?.close();
  await context.emulator?.stop();
  await context.model?.close();
  for (const member of context.members) member.home.remove();
});

test('are dropped as seen by the member taking the account over: each message answered once', async (context) => {
  context.model = await startGatewayModel();
  context.emulator = await TelegramEmulator.start(undefined, { offsets: true });
  const channels = telegramAccounts(['tg1'], [TOKEN], context.emulator.url);
  const modelUrl = context.model.url;
  const url = context.server.url;
  const a = await startGatewayProcess(await memberConfig({ url, id: 'node-a', modelUrl, channels }));
  context.members.push(a);
  const nc = await connectCluster(url);
  context.nc = nc;
  const holder = async (): Promise<string | undefined> =>
    (await leasesOf(nc, 'channel')).find((l) => l.id === 'tg1')?.gateway;
  await until('node-a to hold tg1', async () => ((await holder()) === 'node-a' ? true : undefined), 60_000);
  // node-a's acknowledgements never reach Telegram from here on: the two messages stay unconfirmed.
  const confirmations = context.emulator.holdConfirmations();
  await context.emulator.say(TOKEN, 'one', { userId: USER });
  await context.emulator.say(TOKEN, 'two', { userId: USER });
  await context.emulator.waitForBotMessages(TOKEN, USER, 2, 60_000);
  const log = await JetStreamEventStore.open(nc, { ...accountLog('tg1'), readOnly: true });
  try {
    await until(
      'both replies to be delivered',
      () => (log.read({ type: 'reply.delivered' }).length === 2 ? true : undefined),
      30_000,
    );
    const b = await startGatewayProcess(await memberConfig({ url, id: 'node-b', modelUrl, channels }));
    context.members.push(b);
    // A clean stop: node-a hands tg1 over and records a checkpoint past both finished messages.
    await a.stop();
    await until('node-b to hold tg1', async () => ((await holder()) === 'node-b' ? true : undefined), 60_000);
    confirmations.release();
    // node-b's poller got both updates again; once it acknowledged them, Telegram hands them out no more.
    await until(
      'node-b to have taken the updates handed out again',
      () => (context.emulator!.pending(TOKEN) === 0 ? true : undefined),
      30_000,
    );
    await context.emulator.say(TOKEN, 'three', { userId: USER });
    await context.emulator.waitForBotMessages(TOKEN, USER, 3, 60_000);
    // Every message the stream accepted is answered (a redelivery taken as new would be one more).
    await until(
      'every accepted message to have its reply delivered',
      () => {
        const accepted = log.read({ type: 'message.received' }).length;
        return accepted >= 3 && log.read({ type: 'reply.delivered' }).length === accepted ? true : undefined;
      },
      30_000,
    );
    assert.equal(
      context.emulator.botMessages(TOKEN, USER).map((m) => m.text),
      ['echo: one', 'echo: two', 'echo: three'],
    );
    const received = log.read({ type: 'message.received' }).map((e) => [(e.data as { text: string }).text, e.gateway]);
    assert.equal(received, [
      ['one', 'node-a'],
      ['two', 'node-a'],
      ['three', 'node-b'],
    ]);
  } finally {
    log.close();
  }
});

suite.run();
