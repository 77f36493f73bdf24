// A member that stalls between a reply part's intent and its request (#40: one failover run in five under load): its
// lease runs out meanwhile, another member takes the bot over and sends the part (its intent has no mark: it never
// left). When the stalled member wakes up, it must not send the part too. Real `tern gateway --cluster` processes on
// a real nats-server and the Telegram emulator; the stall is SIGSTOP, taken after the server stored the part's intent
// and before the member heard so (its NATS connection goes through a proxy that delays the server's answers).
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import { connectCluster } from '../../store/cluster/connection.js';
import { accountLog } from '../../store/cluster/stream-names.js';
import { JetStreamEventStore } from '../../store/log/jetstream-store.js';
import { logLines } from '../support/clocked-gateway.js';
import { leasesOf, memberConfig, telegramAccounts } from '../support/cluster-gateways.js';
import { until } from '../support/eventually.js';
import { startGatewayModel, type GatewayModel } from '../support/gateway-model.js';
import { startGatewayProcess, type GatewayProcess } from '../support/gateway-process.js';
import { natsSuite } from '../support/nats-server.js';
import { tcpCut, type TcpCut } from '../support/tcp-cut.js';
import { TelegramEmulator } from '../support/telegram-emulator.js';

const TOKEN = '744444:stalled-sender-DDDD';
const USER = 7001;
const TTL_MS = 5_000;
/** How late the stalling member hears the server: the time the test has to stop it once its intent is stored. */
const LATENCY_MS = 500;

interface Context {
  model?: GatewayModel;
  emulator?: TelegramEmulator;
  gateways: GatewayProcess[];
  proxy?: TcpCut;
}

const { test, suite } = natsSuite<Context>('a member that stalls while a reply part waits to be sent');

suite.before.each((context) => {
  context.gateways = [];
});

suite.after.each(async (context) => {
  for (const gateway of context.gateways) gateway.child.kill('SIGCONT');
  for (const gateway of context.gateways) await gateway.stop().catch(() => undefined);
  await context.emulator?.stop().catch(() => undefined);
  await context.model?.close();
  await context.proxy?.close();
  for (const gateway of context.gateways) gateway.home.remove();
});

test('woken up after the TTL, it does not send the part the member that took the bot over sent', async (context) => {
  const { server } = context;
  context.model = await startGatewayModel({ delayMs: 1_000 });
  context.emulator = await TelegramEmulator.start(undefined, { offsets: true });
  context.proxy = await tcpCut(server.port);
  const { emulator, proxy } = context;
  proxy.delayAnswers(LATENCY_MS);
  const channels = telegramAccounts(['tg1'], [TOKEN], emulator.url);
  const config = (id: string, url: string) =>
    memberConfig({ url, id, modelUrl: context.model!.url, channels, ttlMs: TTL_MS });
  const nc = await connectCluster(server.url);
  const holder = async (): Promise<string | undefined> =>
    (await leasesOf(nc, 'channel')).find((l) => l.id === 'tg1')?.gateway;
  try {
    const stalling = await startGatewayProcess(await config('node-a', proxy.url));
    context.gateways.push(stalling);
    await until('node-a to hold tg1', async () => ((await holder()) === 'node-a' ? true : undefined), 60_000);
    context.gateways.push(await startGatewayProcess(await config('node-b', server.url)));
    // The lease is taken before the account's stream is made: wait for the stream too.
    const tg1 = await until(
      "tg1's event stream",
      () => JetStreamEventStore.open(nc, { ...accountLog('tg1'), readOnly: true }).catch(() => undefined),
      60_000,
    );
    const seen = (type: string, gateway: string) => () =>
      tg1.read({ type }).some((e) => e.gateway === gateway) ? true : undefined;
    try {
      await emulator.say(TOKEN, 'm0', { userId: USER });
      await until("node-a's turn to start", seen('turn.started', 'node-a'), 60_000);
      // Stopped as soon as the intent is stored: node-a hears so only LATENCY_MS later.
      const deadline = Date.now() + 60_000;
      while (!seen('message.sending', 'node-a')()) {
        if (Date.now() > deadline) throw new Error("node-a's intent to send the part was not stored within 60 s");
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      stalling.child.kill('SIGSTOP');
      await until('node-b to take tg1 over', async () => ((await holder()) === 'node-b' ? true : undefined), 60_000);
      await emulator.waitForBotMessages(TOKEN, USER, 1, 60_000);
      // The part node-b sent is the one node-a intended: node-a had not sent it when it stopped.
      await until('node-b to record the part sent', seen('message.sent', 'node-b'), 60_000);
      const intended = tg1.read({ type: 'message.sending' }).find((e) => e.gateway === 'node-a')!;
      const sent = tg1.read({ type: 'message.sent' }).filter((e) => e.gateway === 'node-b');
      assert.equal(
        sent.map((e) => (e.data as { send_key: string }).send_key),
        [(intended.data as { send_key: string }).send_key],
      );
      stalling.child.kill('SIGCONT');
      // Awake, node-a hears its intent is stored, and that another writer appended (or, at its next renewal, that it
      // lost the lease): it stops its gateway of tg1, and sends nothing after that.
      const log = join(stalling.home.home, 'logs', 'gateway.log');
      // Whichever it hears first names the cause; the account's gateway then stops (its own line says how).
      const stopped = (lines: string[]): boolean => {
        const cause = lines.findIndex((l) => /lease lost|stream taken over|another writer appended/.test(l));
        return cause >= 0 && lines.slice(cause).some((l) => l.includes('gateway stopped'));
      };
      await until('node-a to stop tg1', () => (stopped(logLines(log)) ? true : undefined), 60_000);
      assert.equal(
        emulator.botMessages(TOKEN, USER).map((m) => m.text),
        ['echo: m0'],
      );
    } finally {
      tg1.close();
    }
  } finally {
    await nc.close();
  }
});

suite.run();
