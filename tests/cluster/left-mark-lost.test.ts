// A reply part's `left` mark lost on its way to NATS while its request reached the platform (#40), with real
// `tern gateway --cluster` processes on a real nats-server and the Telegram emulator. The member holding the bot
// reaches NATS through a proxy that drops the mark's bytes (and all after them), then splits the member off as a path
// that drops packets would: the member sees its connection fail, the server keeps it open. The lease moves to the other
// member, which reads the part as only `leaving`; it must not send it again before the member that sent it could say
// whether it left. Before the fix it sent it: the chat got the answer twice.
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import { accountLog } from '../../store/cluster/stream-names.js';
import { connectCluster } from '../../store/cluster/connection.js';
import { JetStreamEventStore } from '../../store/log/jetstream-store.js';
import { logLines } from '../support/clocked-gateway.js';
import { leasesOf, memberConfig, telegramAccounts } from '../support/cluster-gateways.js';
import { until } from '../support/eventually.js';
import { startGatewayModel, type GatewayModel } from '../support/gateway-model.js';
import { startGatewayProcess, type GatewayProcess } from '../support/gateway-process.js';
import { natsSuite } from '../support/nats-server.js';
import { tcpCut, type TcpCut } from '../support/tcp-cut.js';
import { TelegramEmulator } from '../support/telegram-emulator.js';

const TOKEN = '744446:left-mark-lost-FFFF';
const USER = 7101;

interface Context {
  model?: GatewayModel;
  emulator?: TelegramEmulator;
  gateways: GatewayProcess[];
  proxy?: TcpCut;
}

const { test, suite } = natsSuite<Context>("a reply part's left mark lost on its way, then a split");

suite.before.each((context) => {
  context.gateways = [];
});

suite.after.each(async (context) => {
  for (const gateway of context.gateways) await gateway.stop().catch(() => undefined);
  await context.emulator?.stop().catch(() => undefined);
  await context.model?.close();
  await context.proxy?.close();
  for (const gateway of context.gateways) gateway.home.remove();
});

test('the member taking the bot over does not send again a part whose left mark was lost', async (context) => {
  const { server } = context;
  context.model = await startGatewayModel({ delayMs: 200 });
  context.emulator = await TelegramEmulator.start(undefined, { offsets: true });
  context.proxy = await tcpCut(server.port);
  const { emulator, proxy } = context;
  const channels = telegramAccounts(['tg1'], [TOKEN], emulator.url);
  const config = (id: string, url: string) =>
    memberConfig({ url, id, modelUrl: context.model!.url, channels, ttlMs: 3_000 });
  const nc = await connectCluster(server.url);
  const holder = async (): Promise<string | undefined> =>
    (await leasesOf(nc, 'channel')).find((l) => l.id === 'tg1')?.gateway;
  try {
    context.gateways.push(await startGatewayProcess(await config('node-a', proxy.url)));
    await until('node-a to hold tg1', async () => ((await holder()) === 'node-a' ? true : undefined), 60_000);
    context.gateways.push(await startGatewayProcess(await config('node-b', server.url)));
    const tg1 = await until(
      "tg1's event stream",
      () => JetStreamEventStore.open(nc, { ...accountLog('tg1'), readOnly: true }).catch(() => undefined),
      60_000,
    );
    try {
      // A `left` mark is a KV put whose payload is `left`; a `leaving` mark's is `leaving:<member>`.
      const held = proxy.holdSent('\r\nleft\r\n');
      await emulator.say(TOKEN, 'm0', { userId: USER });
      await held;
      const answered = () => (emulator.botMessages(TOKEN, USER).length > 0 ? true : undefined);
      await until("node-a's request to reach the chat", answered, 30_000);
      proxy.split();
      await until('node-b to take tg1 over', async () => ((await holder()) === 'node-b' ? true : undefined), 60_000);
      proxy.heal();
      // node-b runs tg1 now: a message after the split is answered by it.
      await emulator.say(TOKEN, 'm1', { userId: USER + 1 });
      const chat = `direct:${USER + 1}`;
      const sent = () =>
        tg1
          .read({ type: 'message.sent' })
          .some((e) => e.gateway === 'node-b' && (e.data as { chat: string }).chat === chat)
          ? true
          : undefined;
      await until('node-b to answer m1', sent, 90_000);
      assert.equal(
        emulator.botMessages(TOKEN, USER).map((m) => m.text),
        ['echo: m0'],
      );
      assert.equal(
        emulator.botMessages(TOKEN, USER + 1).map((m) => m.text),
        ['echo: m1'],
      );
      // node-b asked node-a, which answered once its mark was stored again.
      const heirLog = logLines(join(context.gateways[1]!.home.home, 'logs', 'gateway.log'));
      const settled = heirLog.filter((line) => line.includes('parts marked leaving only are settled'));
      assert.equal(settled.length, 1, heirLog.join('\n'));
      assert.match(settled[0]!, / gateway=node-a .*heard=answered/);
      assert.ok(heirLog.some((line) => line.startsWith('WARN a reply part was being sent when the process ended')));
    } finally {
      tg1.close();
    }
  } finally {
    await nc.close();
  }
});

suite.run();
