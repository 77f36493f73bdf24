// Chaos for the cluster (#40 item 3): 3 `tern gateway --cluster` members on one nats-server, one Telegram bot on the
// emulator, many chats sending while a random member is killed with SIGKILL (and started again on its home) every
// `killEveryMs`, one member's NATS connection is partitioned through a TCP proxy for two lease TTLs, and the NATS
// server is killed and started again. Then every chat's answers are checked: lost, doubled, out of order.
//
//   node --import tsx bench/chaos.ts [--minutes 5] [--chats 200] [--per-chat 10] [--kill-every-s 20]
import { parseArgs } from 'node:util';
import { memberConfig, telegramAccounts } from '../tests/support/cluster-gateways.js';
import { startGatewayModel } from '../tests/support/gateway-model.js';
import { startGatewayProcess, type GatewayProcess } from '../tests/support/gateway-process.js';
import { startNatsServer } from '../tests/support/nats-server.js';
import { TelegramEmulator } from '../tests/support/telegram-emulator.js';
import { tcpCut } from '../tests/support/tcp-cut.js';

const TOKEN = '820001:chaos-bot-AAAA';
const TTL_MS = 5_000;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const userOf = (chat: number): number => 20_000 + chat;

export interface ChaosOptions {
  /** How long messages are sent and members killed. */
  durationMs: number;
  chats: number;
  perChat: number;
  killEveryMs: number;
  /** How long to wait, after the chaos, for every answer. */
  settleMs?: number;
  /** Seeds which member each kill picks. */
  seed?: number;
  log?: (line: string) => void;
}

export interface ChaosResult {
  messages: number;
  lost: number;
  doubles: number;
  /** Chats whose answers came in another order than their messages. */
  outOfOrder: number;
  kills: number;
}

/** A member's place in the cluster: its config (same home and port at every restart) and the process running now. */
interface Member {
  id: string;
  config: Record<string, unknown>;
  process: GatewayProcess;
}

export async function runChaos(options: ChaosOptions): Promise<ChaosResult> {
  const log = options.log ?? (() => undefined);
  const server = await startNatsServer();
  const proxy = await tcpCut(server.port);
  const model = await startGatewayModel({ delayMs: 50 });
  const emulator = await TelegramEmulator.start(undefined, { offsets: true });
  const members: Member[] = [];
  let random = options.seed ?? 7;
  const draw = (n: number): number => {
    random = (random * 1_103_515_245 + 12_345) % 2 ** 31;
    return random % n;
  };
  try {
    const channels = telegramAccounts(['tg1'], [TOKEN], emulator.url);
    for (const id of ['chaos-a', 'chaos-b', 'chaos-c']) {
      // chaos-c reaches NATS through the proxy that partitions it.
      const url = id === 'chaos-c' ? proxy.url : server.url;
      const config = await memberConfig({ url, id, modelUrl: model.url, channels, ttlMs: TTL_MS });
      members.push({ id, config, process: await startGatewayProcess(config) });
    }
    const total = options.chats * options.perChat;
    const started = Date.now();
    const sending = (async () => {
      // Each chat's messages in order, spread over the first three quarters of the run.
      const gapMs = (options.durationMs * 0.75) / total;
      for (let i = 0; i < options.perChat; i++)
        for (let chat = 0; chat < options.chats; chat++) {
          await emulator.say(TOKEN, `c${chat}-${i}`, { userId: userOf(chat) });
          await sleep(gapMs);
        }
    })();
    let kills = 0;
    let partitioned = false;
    let restartedNats = false;
    while (Date.now() - started < options.durationMs) {
      await sleep(Math.min(options.killEveryMs, options.durationMs - (Date.now() - started)));
      const at = (Date.now() - started) / options.durationMs;
      if (!partitioned && at >= 0.3) {
        partitioned = true;
        log(`partition chaos-c for ${2 * TTL_MS} ms`);
        proxy.cut();
        await sleep(2 * TTL_MS);
        proxy.heal();
      } else if (!restartedNats && at >= 0.6) {
        restartedNats = true;
        log('NATS server killed and started again');
        await server.kill9();
        await server.restart();
      } else if (Date.now() - started < options.durationMs) {
        const member = members[draw(members.length)]!;
        log(`kill ${member.id}`);
        await member.process.kill();
        kills++;
        member.process = await startGatewayProcess(member.config, {}, member.process.home);
      }
    }
    await sending;
    const deadline = Date.now() + (options.settleMs ?? 120_000);
    const answers = (chat: number): string[] => emulator.botMessages(TOKEN, userOf(chat)).map((m) => m.text);
    const expected = (chat: number): string[] =>
      Array.from({ length: options.perChat }, (_, i) => `echo: c${chat}-${i}`);
    const chats = Array.from({ length: options.chats }, (_, chat) => chat);
    while (chats.some((chat) => new Set(answers(chat)).size < options.perChat) && Date.now() < deadline)
      await sleep(250);
    // A double may come a moment after the last answer: a short quiet time before counting.
    await sleep(2_000);
    let lost = 0;
    let doubles = 0;
    let outOfOrder = 0;
    for (const chat of chats) {
      const got = answers(chat);
      const want = expected(chat);
      lost += want.filter((text) => !got.includes(text)).length;
      doubles += got.length - new Set(got).size;
      const firsts = [...new Set(got)];
      if (JSON.stringify(firsts) !== JSON.stringify(want.filter((text) => got.includes(text)))) outOfOrder++;
    }
    return { messages: total, lost, doubles, outOfOrder, kills };
  } finally {
    for (const member of members) await member.process.stop().catch(() => undefined);
    for (const member of members) member.process.home.remove();
    await emulator.stop();
    await model.close();
    await proxy.close();
    await server.close();
  }
}

if (process.argv[1]?.endsWith('chaos.ts')) {
  const { values } = parseArgs({
    options: {
      minutes: { type: 'string', default: '5' },
      chats: { type: 'string', default: '200' },
      'per-chat': { type: 'string', default: '10' },
      'kill-every-s': { type: 'string', default: '20' },
    },
  });
  const started = Date.now();
  const result = await runChaos({
    durationMs: Number(values.minutes) * 60_000,
    chats: Number(values.chats),
    perChat: Number(values['per-chat']),
    killEveryMs: Number(values['kill-every-s']) * 1000,
    log: (line) => process.stderr.write(`${Math.round((Date.now() - started) / 1000)} s: ${line}\n`),
  });
  process.stdout.write(`${JSON.stringify(result)}\n`);
}
