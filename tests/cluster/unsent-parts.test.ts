// Issue #40 item 1: a member killed with a reply part whose `message.sending` is in the account's stream but whose
// request never started: the member taking the account over sends it (once), as a restarted single gateway does.
// The member's NATS connection runs through a proxy that, from a moment on, passes what the member writes and holds
// what the server answers: the member's events are stored, but it never hears so, and it never sends the part.
import { connect, createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import type { NatsConnection } from '@nats-io/transport-node';
import { connectCluster } from '../../store/cluster/connection.js';
import { accountLog } from '../../store/cluster/stream-names.js';
import { JetStreamEventStore } from '../../store/log/jetstream-store.js';
import { logLines } from '../support/clocked-gateway.js';
import { leasesOf, memberConfig, telegramAccounts } from '../support/cluster-gateways.js';
import { until } from '../support/eventually.js';
import { startGatewayModel, type GatewayModel } from '../support/gateway-model.js';
import { startGatewayProcess, type GatewayProcess } from '../support/gateway-process.js';
import { natsSuite } from '../support/nats-server.js';
import { TelegramEmulator } from '../support/telegram-emulator.js';

const TOKEN = '755555:unsent-bot-EEEE';
const USER = 7101;

interface OneWay {
  url: string;
  /** From now on, what the server sends is held; what the client sends still goes through. */
  holdAnswers(): void;
  close(): Promise<void>;
}

async function oneWayProxy(targetPort: number): Promise<OneWay> {
  const open = new Set<Socket>();
  let holding = false;
  const server = createServer((client) => {
    const upstream = connect(targetPort, '127.0.0.1');
    for (const socket of [client, upstream]) {
      open.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream);
    upstream.on('data', (chunk: Buffer) => {
      if (!holding) client.write(chunk);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `nats://127.0.0.1:${port}`,
    holdAnswers: () => {
      holding = true;
    },
    close: async () => {
      for (const socket of open) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

interface Context {
  model?: GatewayModel;
  emulator?: TelegramEmulator;
  proxy?: OneWay;
  members: GatewayProcess[];
  nc?: NatsConnection;
}

const { test, suite } = natsSuite<Context>('a reply part that never left the killed member');

suite.before.each((context) => {
  context.members = [];
});

suite.after.each(async (context) => {
  for (const member of context.members) await member.stop();
  await context.nc?.close();
  await context.proxy?.close();
  await context.emulator?.stop();
  await context.model?.close();
  for (const member of context.members) member.home.remove();
});

test('is sent once by the member that takes the account over', async (context) => {
  context.model = await startGatewayModel();
  context.emulator = await TelegramEmulator.start(undefined, { offsets: true });
  context.proxy = await oneWayProxy(context.server.port);
  const channels = telegramAccounts(['tg1'], [TOKEN], context.emulator.url);
  const modelUrl = context.model.url;
  const a = await startGatewayProcess(await memberConfig({ url: context.proxy.url, id: 'node-a', modelUrl, channels }));
  context.members.push(a);
  const nc = await connectCluster(context.server.url);
  context.nc = nc;
  const holder = async (): Promise<string | undefined> =>
    (await leasesOf(nc, 'channel')).find((l) => l.id === 'tg1')?.gateway;
  await until('node-a to hold tg1', async () => ((await holder()) === 'node-a' ? true : undefined), 60_000);
  const b = await startGatewayProcess(
    await memberConfig({ url: context.server.url, id: 'node-b', modelUrl, channels }),
  );
  context.members.push(b);
  await context.emulator.say(TOKEN, 'first', { userId: USER });
  await context.emulator.waitForBotMessages(TOKEN, USER, 1, 60_000);
  const log = await JetStreamEventStore.open(nc, { ...accountLog('tg1'), readOnly: true });
  try {
    // Once everything of the first answer is in the stream, node-a hears nothing more from the server.
    await until(
      'the first reply to be delivered',
      () => (log.read({ type: 'reply.delivered' }).length === 1 ? true : undefined),
      30_000,
    );
    context.proxy.holdAnswers();
    await context.emulator.say(TOKEN, 'second', { userId: USER });
    const intent = await until(
      "the second reply's intent in the stream",
      () => {
        const sent = new Set(log.read({ type: 'message.sent' }).map((e) => (e.data as { send_key: string }).send_key));
        return log
          .read({ type: 'message.sending' })
          .map((e) => (e.data as { send_key: string }).send_key)
          .find((key) => !sent.has(key));
      },
      60_000,
    );
    await a.kill();
    const answers = await context.emulator.waitForBotMessages(TOKEN, USER, 2, 60_000).catch((error: Error) => {
      throw new Error(
        `${error.message}; node-b logged:\n${logLines(join(b.home.home, 'logs', 'gateway.log'))
          .slice(-12)
          .join('\n')}`,
      );
    });
    assert.equal(
      answers.map((m) => m.text),
      ['echo: first', 'echo: second'],
    );
    await until(
      'the second reply to be delivered',
      () => (log.read({ type: 'reply.delivered' }).length === 2 ? true : undefined),
      30_000,
    );
    assert.equal(
      context.emulator.botMessages(TOKEN, USER).map((m) => m.text),
      ['echo: first', 'echo: second'],
    );
    const sends = log.read({ type: 'message.sent' }).map((e) => [(e.data as { send_key: string }).send_key, e.gateway]);
    assert.equal(
      sends.filter(([key]) => key === intent),
      [[intent, 'node-b']],
    );
    assert.is(sends.length, 2);
    assert.is(await holder(), 'node-b');
    const warned = logLines(join(b.home.home, 'logs', 'gateway.log')).filter((line) =>
      line.startsWith('WARN a reply part was being sent'),
    );
    assert.equal(warned, []);
  } finally {
    log.close();
  }
});

suite.run();
