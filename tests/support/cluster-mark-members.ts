// Two `tern gateway --cluster` members on one Telegram bot for the send-mark tests (#40), on a real nats-server and
// the Telegram emulator: node-a, the bot's first holder, reaches NATS through a TCP proxy the test can hold, cut or
// split; node-b, its heir, reaches NATS directly.
import { join } from 'node:path';
import type { NatsConnection } from '@nats-io/transport-node';
import { connectCluster } from '../../store/cluster/connection.js';
import { accountLog } from '../../store/cluster/stream-names.js';
import { JetStreamEventStore } from '../../store/log/jetstream-store.js';
import { logLines } from './clocked-gateway.js';
import { leasesOf, memberConfig, telegramAccounts } from './cluster-gateways.js';
import { until } from './eventually.js';
import { startGatewayModel, type GatewayModel } from './gateway-model.js';
import { startGatewayProcess, type GatewayProcess } from './gateway-process.js';
import { natsSuite, type NatsContext } from './nats-server.js';
import { tcpCut, type TcpCut } from './tcp-cut.js';
import { TelegramEmulator } from './telegram-emulator.js';

export interface MarkContext {
  model?: GatewayModel;
  emulator?: TelegramEmulator;
  gateways: GatewayProcess[];
  proxy?: TcpCut;
}

/** A suite on one nats-server whose tests each start two members; what they started is stopped after each. */
export function markSuite(name: string): ReturnType<typeof natsSuite<MarkContext>> {
  const made = natsSuite<MarkContext>(name);
  made.suite.before.each((context) => {
    context.gateways = [];
  });
  made.suite.after.each(async (context) => {
    for (const gateway of context.gateways) await gateway.stop().catch(() => undefined);
    await context.emulator?.stop().catch(() => undefined);
    await context.model?.close();
    await context.proxy?.close();
    for (const gateway of context.gateways) gateway.home.remove();
  });
  return made;
}

export interface TwoMembers {
  emulator: TelegramEmulator;
  proxy: TcpCut;
  /** A connection of the test's own, straight to the server. */
  nc: NatsConnection;
  /** Bot `tg1`'s event stream, read only. */
  tg1: JetStreamEventStore;
  /** node-a, through the proxy. */
  writer: GatewayProcess;
  /** A member's config on this bot (a fresh health port each time). */
  config(id: string, url: string): Promise<Record<string, unknown>>;
  /** The member holding tg1's lease now. */
  holder(): Promise<string | undefined>;
  /** Waits (`until`) for `gateway` to have stored a `message.sent` (for `chat`, when given) in tg1's stream. */
  sentBy(gateway: string, what: string, chat?: string): Promise<true>;
  /** node-b's gateway.log, line by line. */
  heirLog(): string[];
  /** node-b's log lines saying how the parts marked `leaving` only were settled. */
  settled(): string[];
  /**
   * Has `user` say `text` and waits for node-a's request to reach the chat while the proxy drops the part's `left`
   * mark (a KV put whose payload is `left`; a `leaving` mark's is `leaving:<member>:<server>`) and all after it.
   */
  replyWithLeftMarkDropped(user: number, text: string): Promise<void>;
  /** Waits for node-b to hold tg1. */
  heirHolds(): Promise<true>;
  /** Has `user` say `text` and waits for node-b to store its `message.sent` for that chat. */
  heirAnswers(user: number, text: string): Promise<true>;
  close(): Promise<void>;
}

/** Starts node-a (it takes tg1), then node-b (it waits), and opens tg1's stream: the state each test starts from. */
export async function twoMembers(context: MarkContext & NatsContext, token: string): Promise<TwoMembers> {
  const { server } = context;
  context.model = await startGatewayModel({ delayMs: 200 });
  context.emulator = await TelegramEmulator.start(undefined, { offsets: true });
  context.proxy = await tcpCut(server.port);
  const { emulator, proxy } = context;
  const channels = telegramAccounts(['tg1'], [token], emulator.url);
  const config = (id: string, url: string) =>
    memberConfig({ url, id, modelUrl: context.model!.url, channels, ttlMs: 3_000 });
  const nc = await connectCluster(server.url);
  const holder = async (): Promise<string | undefined> =>
    (await leasesOf(nc, 'channel')).find((l) => l.id === 'tg1')?.gateway;
  try {
    const writer = await startGatewayProcess(await config('node-a', proxy.url));
    context.gateways.push(writer);
    await until('node-a to hold tg1', async () => ((await holder()) === 'node-a' ? true : undefined), 60_000);
    const heir = await startGatewayProcess(await config('node-b', server.url));
    context.gateways.push(heir);
    const tg1 = await until(
      "tg1's event stream",
      () => JetStreamEventStore.open(nc, { ...accountLog('tg1'), readOnly: true }).catch(() => undefined),
      60_000,
    );
    const sentBy = (gateway: string, what: string, chat?: string) =>
      until(
        what,
        () =>
          tg1
            .read({ type: 'message.sent' })
            .some((e) => e.gateway === gateway && (chat === undefined || (e.data as { chat: string }).chat === chat))
            ? true
            : undefined,
        90_000,
      );
    const heirLog = () => logLines(join(heir.home.home, 'logs', 'gateway.log'));
    return {
      emulator,
      proxy,
      nc,
      tg1,
      writer,
      config,
      holder,
      sentBy,
      heirLog,
      settled: () => heirLog().filter((line) => line.includes('parts marked leaving only are settled')),
      async replyWithLeftMarkDropped(user, text) {
        const held = proxy.holdSent('\r\nleft\r\n');
        await emulator.say(token, text, { userId: user });
        await held;
        const answered = () => (emulator.botMessages(token, user).length > 0 ? true : undefined);
        await until("node-a's request to reach the chat", answered, 30_000);
      },
      heirHolds: () =>
        until('node-b to take tg1 over', async () => ((await holder()) === 'node-b' ? true : undefined), 60_000),
      async heirAnswers(user, text) {
        await emulator.say(token, text, { userId: user });
        return sentBy('node-b', `node-b to answer ${text}`, `direct:${user}`);
      },
      close: async () => {
        tg1.close();
        await nc.close();
      },
    };
  } catch (error) {
    await nc.close();
    throw error;
  }
}
