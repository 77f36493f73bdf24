// Issue #40 item 1: a member killed after a reply part's request was written must have its send mark stored, or the
// member taking the account over takes the part as never sent and sends it again. The member's NATS connection runs
// through a proxy that, from a moment on, holds everything the member writes from its first send mark on: the mark
// never reaches the server. A member that publishes its mark as the request starts has written the request by then
// (the double); one that waits for the server to have the mark before writing never sends the part, and the member
// taking over sends it, once.
import { connect, createServer, type Socket } from 'node:net';
import * as assert from 'uvu/assert';
import { Kvm } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import { connectCluster } from '../../store/cluster/connection.js';
import { SEND_MARKS_BUCKET } from '../../store/cluster/send-marks.js';
import { accountLog } from '../../store/cluster/stream-names.js';
import { JetStreamEventStore } from '../../store/log/jetstream-store.js';
import { leasesOf, memberConfig, telegramAccounts } from '../support/cluster-gateways.js';
import { until } from '../support/eventually.js';
import { startGatewayModel, type GatewayModel } from '../support/gateway-model.js';
import { startGatewayProcess, type GatewayProcess } from '../support/gateway-process.js';
import { natsSuite } from '../support/nats-server.js';
import { TelegramEmulator } from '../support/telegram-emulator.js';

const TOKEN = '777777:marked-bot-GGGG';
const USER = 7301;
const MARK_SUBJECT = Buffer.from(`$KV.${SEND_MARKS_BUCKET}.`);

interface MarkHold {
  url: string;
  /** From now on, the first chunk the member writes with a send mark in it, and all after it, are held. */
  arm(): void;
  /** Whether a send mark was held. */
  held(): boolean;
  close(): Promise<void>;
}

async function markHoldingProxy(targetPort: number): Promise<MarkHold> {
  const open = new Set<Socket>();
  let armed = false;
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
    upstream.pipe(client);
    client.on('data', (chunk: Buffer) => {
      if (armed && chunk.includes(MARK_SUBJECT)) holding = true;
      if (!holding) upstream.write(chunk);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `nats://127.0.0.1:${port}`,
    arm: () => {
      armed = true;
    },
    held: () => holding,
    close: async () => {
      for (const socket of open) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

interface Context {
  model?: GatewayModel;
  emulator?: TelegramEmulator;
  proxy?: MarkHold;
  members: GatewayProcess[];
  nc?: NatsConnection;
}

const { test, suite } = natsSuite<Context>('a send mark that never reached the server');

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

test('means the part never left: the member taking the account over sends it, once', async (context) => {
  context.model = await startGatewayModel();
  context.emulator = await TelegramEmulator.start(undefined, { offsets: true });
  context.proxy = await markHoldingProxy(context.server.port);
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
  const marks = await new Kvm(nc).open(SEND_MARKS_BUCKET);
  const log = await JetStreamEventStore.open(nc, { ...accountLog('tg1'), readOnly: true });
  try {
    // The first part's mark is settled (deleted) before the proxy is armed: the next mark written is the second's.
    await until(
      "the first part's mark to be settled",
      async () => {
        if (log.read({ type: 'reply.delivered' }).length !== 1) return undefined;
        for await (const _key of await marks.keys()) return undefined;
        return true;
      },
      30_000,
    );
    context.proxy.arm();
    await context.emulator.say(TOKEN, 'second', { userId: USER });
    await until("node-a to write the second part's mark", () => (context.proxy!.held() ? true : undefined), 60_000);
    await a.kill();
    await until('node-b to hold tg1', async () => ((await holder()) === 'node-b' ? true : undefined), 60_000);
    await until(
      'the second reply to be delivered',
      () => (log.read({ type: 'reply.delivered' }).length === 2 ? true : undefined),
      60_000,
    );
    assert.equal(
      context.emulator.botMessages(TOKEN, USER).map((m) => m.text),
      ['echo: first', 'echo: second'],
    );
    const sent = log.read({ type: 'message.sent' }).map((e) => [(e.data as { text: string }).text, e.gateway]);
    assert.equal(sent, [
      ['echo: first', 'node-a'],
      ['echo: second', 'node-b'],
    ]);
  } finally {
    log.close();
  }
});

suite.run();
