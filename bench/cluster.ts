// Several gateways on one NATS JetStream server (#27), on this one machine: three `tern gateway --cluster` members
// against one, three Telegram bots on the emulator, 300 chats (sessions), a model answering in 200 ms. Rows: turns per
// second with 3 members and with 1 (on 2 cores the ratio is what matters: the members share the CPU), and how long a
// SIGKILLed member's bot stays silent (kill → that bot answering a new message again, lease TTL 5 s). Then one bot's
// turns per second on one member and on two (`bench/one-bot.ts`, #40 item 2).
import { connectCluster } from '../store/cluster/connection.js';
import { Leases } from '../store/cluster/leases.js';
import { accountLog } from '../store/cluster/stream-names.js';
import { JetStreamEventStore } from '../store/log/jetstream-store.js';
import { leasesOf } from '../tests/support/cluster-gateways.js';
import { startGatewayModel, type GatewayModel } from '../tests/support/gateway-model.js';
import { modelEntry, startGatewayProcess, type GatewayProcess } from '../tests/support/gateway-process.js';
import { natsAvailable, startNatsServer, type NatsServer } from '../tests/support/nats-server.js';
import { freePort, TelegramEmulator } from '../tests/support/telegram-emulator.js';
import { oneBotTurnsPerSecond } from './one-bot.js';
import { sendMarkRows } from './send-mark.js';
import { round, type BenchRow } from './row.js';

const TOKENS = ['810001:bench-cluster-a', '810002:bench-cluster-b', '810003:bench-cluster-c'];
const ACCOUNTS = ['tg1', 'tg2', 'tg3'];
const SESSIONS = 300;
const ROUNDS = 2;
/** `CLUSTER_TTL_MS` measures another `cluster.lease_ttl_ms` (the row is the default, 5 s). */
const TTL_MS = Number(process.env.CLUSTER_TTL_MS ?? 5_000);
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const botOf = (chat: number): string => TOKENS[chat % TOKENS.length]!;
const userOf = (chat: number): number => 9000 + chat;

interface Cluster {
  server: NatsServer;
  emulator: TelegramEmulator;
  members: GatewayProcess[];
  ids: string[];
}

async function startCluster(model: GatewayModel, size: number): Promise<Cluster> {
  const server = await startNatsServer();
  const emulator = await TelegramEmulator.start(undefined, { offsets: true });
  const channelList = Object.fromEntries(
    ACCOUNTS.map((name, i) => [
      name,
      {
        enabled: true,
        type: 'telegram',
        settings: { token: TOKENS[i], base_url: emulator.url, poll_timeout_seconds: 1, allow_from: ['*'] },
      },
    ]),
  );
  const ids = Array.from({ length: size }, (_, i) => `bench-${i}`);
  const members: GatewayProcess[] = [];
  for (const id of ids) {
    members.push(
      await startGatewayProcess({
        gateway: { host: '127.0.0.1', port: await freePort() },
        cluster: { url: server.url, id, lease_ttl_ms: TTL_MS },
        agents: { defaults: { model: 'fast' } },
        model_list: [modelEntry(model.url)],
        heartbeat: { enabled: false },
        channel_list: channelList,
      }),
    );
  }
  return { server, emulator, members, ids };
}

async function stopCluster(cluster: Cluster): Promise<void> {
  for (const member of cluster.members)
    if (member.child.exitCode === null && member.child.signalCode === null) await member.stop().catch(() => undefined);
  for (const member of cluster.members) member.home.remove();
  await cluster.emulator.stop();
  await cluster.server.close();
}

/** Which member holds each bot, once every bot is held (and, with several members, spread over all of them). */
async function settledLeases(cluster: Cluster): Promise<Map<string, string>> {
  const nc = await connectCluster(cluster.server.url);
  const observer = await Leases.open(nc, { gateway: 'bench-observer', ttlMs: TTL_MS });
  try {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const held = (await observer.list()).filter((l) => l.kind === 'channel');
      const holders = new Set(held.map((l) => l.gateway));
      if (held.length === ACCOUNTS.length && holders.size === Math.min(cluster.members.length, ACCOUNTS.length))
        return new Map(held.map((l) => [l.id, l.gateway]));
      if (Date.now() > deadline) throw new Error(`the bots were not spread over the members: ${JSON.stringify(held)}`);
      await sleep(100);
    }
  } finally {
    observer.abandon();
    await nc.close();
  }
}

/** Turns per second: every session asks ROUNDS messages at once, timed until every one is answered. */
async function turnsPerSecond(cluster: Cluster): Promise<number> {
  const started = performance.now();
  for (let round = 0; round < ROUNDS; round++) {
    for (let chat = 0; chat < SESSIONS; chat++)
      await cluster.emulator.say(botOf(chat), `r${round}`, { userId: userOf(chat) });
  }
  for (let chat = 0; chat < SESSIONS; chat++)
    await cluster.emulator.waitForBotMessages(botOf(chat), userOf(chat), ROUNDS, 600_000);
  return (SESSIONS * ROUNDS) / ((performance.now() - started) / 1000);
}

/** One failover's figures (ms after the kill): the bot answering again, and the steps on the way there. */
export interface Failover {
  answeredMs: number;
  /** The bot's lease held by another member (read by polling the lease bucket every 50 ms). */
  leaseMs: number;
  /** The taker's first event in the account's stream: the stream folded, the account's gateway started. */
  startedMs: number;
  /** The message sent after the kill received by the taker's poller. */
  receivedMs: number;
}

/**
 * Kill → the dead member's bot answering a message sent after the kill. The holder is read right before the kill: on
 * a loaded machine a bot moves while the turns run (a member that stalls loses its lease), and killing the member that
 * held it before measured a bot that never stopped answering (243 ms).
 */
async function failover(cluster: Cluster): Promise<Failover> {
  const holders = await settledLeases(cluster);
  const holder = holders.get('tg1')!;
  const nc = await connectCluster(cluster.server.url);
  try {
    await cluster.members[cluster.ids.indexOf(holder)]!.kill();
    const killed = Date.now();
    const chat = 0;
    const before = cluster.emulator.botMessages(TOKENS[0]!, userOf(chat)).length;
    await cluster.emulator.say(TOKENS[0]!, 'after the kill', { userId: userOf(chat) });
    let leaseMs: number | undefined;
    const answered = cluster.emulator.waitForBotMessages(TOKENS[0]!, userOf(chat), before + 1, 60_000);
    let done = false;
    void answered.finally(() => (done = true)).catch(() => undefined);
    while (leaseMs === undefined && !done) {
      const lease = (await leasesOf(nc, 'channel')).find((l) => l.id === 'tg1');
      if (lease && lease.gateway !== holder) leaseMs = Date.now() - killed;
      else await sleep(50);
    }
    await answered;
    const answeredMs = Date.now() - killed;
    const log = await JetStreamEventStore.open(nc, { ...accountLog('tg1'), readOnly: true });
    try {
      const after = log.read().filter((e) => e.at >= killed && e.gateway !== holder);
      const received = after.find(
        (e) => e.type === 'message.received' && (e.data as { text?: string }).text === 'after the kill',
      );
      return {
        answeredMs,
        leaseMs: leaseMs ?? answeredMs,
        startedMs: (after[0]?.at ?? killed) - killed,
        receivedMs: (received?.at ?? killed) - killed,
      };
    } finally {
      log.close();
    }
  } finally {
    await nc.close();
  }
}

/** Failovers that measure the row, each a kill at another point of the lease's renewal cycle. */
const FAILOVERS = 3;

/**
 * The median of `FAILOVERS` kills, `done` and more on fresh clusters of three: a kill lands anywhere in the holder's
 * renewal cycle (every `lease_ttl_ms / 3`), so the lease runs out 3.3 to 5 s after it, and one kill is as likely to
 * land early in the cycle as late (docs/scale.md).
 */
async function medianFailoverMs(model: GatewayModel, done: number[]): Promise<number> {
  const times = [...done];
  while (times.length < FAILOVERS) {
    const cluster = await startCluster(model, 3);
    try {
      times.push((await failover(cluster)).answeredMs);
    } finally {
      await stopCluster(cluster);
    }
  }
  return times.sort((a, b) => a - b)[Math.floor(FAILOVERS / 2)]!;
}

export async function bench(): Promise<BenchRow[]> {
  if (!natsAvailable()) return [];
  const model = await startGatewayModel({ delayMs: 200 });
  try {
    const one = await startCluster(model, 1);
    let single: number;
    try {
      await settledLeases(one);
      single = await turnsPerSecond(one);
    } finally {
      await stopCluster(one);
    }
    const three = await startCluster(model, 3);
    let spread: number;
    let firstFailoverMs: number;
    try {
      await settledLeases(three);
      spread = await turnsPerSecond(three);
      firstFailoverMs = (await failover(three)).answeredMs;
    } finally {
      await stopCluster(three);
    }
    const failoverMs = await medianFailoverMs(model, [firstFailoverMs]);
    const oneBotSingle = await oneBotTurnsPerSecond(1);
    const oneBotPair = await oneBotTurnsPerSecond(2);
    return [
      { name: 'cluster.turns_per_s_3_nodes', value: round(spread, 1), unit: 'turns/s' },
      { name: 'cluster.turns_per_s_1_node', value: round(single, 1), unit: 'turns/s' },
      { name: 'cluster.failover_ms', value: round(failoverMs, 0), unit: 'ms' },
      { name: 'cluster.one_bot_turns_per_s_1_member', value: round(oneBotSingle, 1), unit: 'turns/s' },
      { name: 'cluster.one_bot_turns_per_s_2_members', value: round(oneBotPair, 1), unit: 'turns/s' },
      ...(await sendMarkRows()),
    ];
  } finally {
    await model.close();
  }
}

// Run alone (`node --import tsx bench/cluster.ts --failover N`): N failovers, each on a fresh cluster of three members,
// one line each with the steps' times, for measuring what the takeover waits on.
if (process.argv[1]?.endsWith('cluster.ts') && process.argv[2] === '--failover') {
  const runs = Number(process.argv[3] ?? 5);
  const model = await startGatewayModel({ delayMs: 200 });
  try {
    for (let run = 1; run <= runs; run++) {
      const cluster = await startCluster(model, 3);
      try {
        const f = await failover(cluster);
        process.stdout.write(
          `failover ${run}: answered ${f.answeredMs} ms (lease taken ${f.leaseMs}, account started ${f.startedMs}, ` +
            `message received ${f.receivedMs})\n`,
        );
      } finally {
        await stopCluster(cluster);
      }
    }
  } finally {
    await model.close();
  }
}
