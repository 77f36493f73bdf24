// A reply part's marks and its request (#40) when the member holding the bot is killed in between, with real
// `tern gateway --cluster` processes on a real nats-server and the Telegram emulator; the member holding the bot reaches
// NATS through a proxy. First: the proxy lets the first bytes carrying a mark (and all after them) go nowhere, as a
// publish still on its way when the member is killed (the second cause of the chaos run's doubles: the part's request
// was written while its mark was on its way, and the member taking the bot over sent it again). Second: the server
// stores the part's first mark and its answer never comes back, so the member is killed before the request is
// written (chaos8's mark, stored before the request, made the member taking over take the part as maybe sent: lost).
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import { Kvm } from '@nats-io/kv';
import { connectCluster } from '../../store/cluster/connection.js';
import { SEND_MARKS_BUCKET } from '../../store/cluster/send-marks.js';
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

const TOKEN = '744445:mark-before-send-EEEE';
const USER = 7002;

interface Context {
  model?: GatewayModel;
  emulator?: TelegramEmulator;
  gateways: GatewayProcess[];
  proxy?: TcpCut;
}

const { test, suite } = natsSuite<Context>("a reply part's mark lost on its way to NATS");

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

test('the member killed with its mark on the way sent nothing; the member taking over sends the part once', async (context) => {
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
    const killed = await startGatewayProcess(await config('node-a', proxy.url));
    context.gateways.push(killed);
    await until('node-a to hold tg1', async () => ((await holder()) === 'node-a' ? true : undefined), 60_000);
    context.gateways.push(await startGatewayProcess(await config('node-b', server.url)));
    const tg1 = await until(
      "tg1's event stream",
      () => JetStreamEventStore.open(nc, { ...accountLog('tg1'), readOnly: true }).catch(() => undefined),
      60_000,
    );
    try {
      const held = proxy.holdSent(`$KV.${SEND_MARKS_BUCKET}.`);
      await emulator.say(TOKEN, 'm0', { userId: USER });
      await held;
      await killed.kill();
      const sent = (gateway: string) => () =>
        tg1.read({ type: 'message.sent' }).some((e) => e.gateway === gateway) ? true : undefined;
      await until('node-b to take tg1 over and send the part', sent('node-b'), 60_000);
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

test('the member killed after its mark was stored, before its request was written: the member taking over sends the part once', async (context) => {
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
    const killed = await startGatewayProcess(await config('node-a', proxy.url));
    context.gateways.push(killed);
    await until('node-a to hold tg1', async () => ((await holder()) === 'node-a' ? true : undefined), 60_000);
    context.gateways.push(await startGatewayProcess(await config('node-b', server.url)));
    const tg1 = await until(
      "tg1's event stream",
      () => JetStreamEventStore.open(nc, { ...accountLog('tg1'), readOnly: true }).catch(() => undefined),
      60_000,
    );
    const marks = await until(
      'the marks bucket',
      () => new Kvm(nc).open(SEND_MARKS_BUCKET, { bindOnly: true }).catch(() => undefined),
      60_000,
    );
    try {
      const held = proxy.holdAnswersAfter(`$KV.${SEND_MARKS_BUCKET}.`);
      await emulator.say(TOKEN, 'm1', { userId: USER + 1 });
      await held;
      // The server has the mark; node-a waits for its answer and has not written the request.
      const stored = async (): Promise<true | undefined> => {
        for await (const _ of await marks.keys()) return true;
        return undefined;
      };
      await until('the mark stored', stored, 30_000);
      await killed.kill();
      const chat = `direct:${USER + 1}`;
      const sent = () =>
        tg1
          .read({ type: 'message.sent' })
          .some((e) => e.gateway === 'node-b' && (e.data as { chat: string }).chat === chat)
          ? true
          : undefined;
      await until('node-b to take tg1 over and send the part', sent, 60_000);
      assert.equal(
        emulator.botMessages(TOKEN, USER + 1).map((m) => m.text),
        ['echo: m1'],
      );
      // Only `leaving` was stored: node-b asked node-a first, and sent the part once node-a was gone from the server.
      const heirLog = logLines(join(context.gateways[1]!.home.home, 'logs', 'gateway.log'));
      const settled = heirLog.filter((line) => line.includes('parts marked leaving only are settled'));
      assert.equal(settled.length, 1, heirLog.join('\n'));
      assert.match(settled[0]!, / gateway=node-a .*heard=gone/);
    } finally {
      tg1.close();
    }
  } finally {
    await nc.close();
  }
});

suite.run();
