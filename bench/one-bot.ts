// One busy bot on a cluster (#40 item 2): `tern gateway --cluster` members with `cluster.session_partitions` on one
// nats-server, one Telegram bot on the emulator, 40 chats whose every turn calls `search_files` over a shared
// workspace's `corpus` folder and a model that answers at once. #40 asks for turns that spend ~25 ms of CPU in a tool:
// 360 files of 64 KB take about 26 ms of CPU per call in a process of its own, all on the calling thread (read with
// readSync, matched in JS: libuv's pool stays idle). `ONE_BOT_FILES` sizes the corpus (docs/benchmarks.md).
// Turns per second with one member and with two: on 2 cores the second member can only help by using the second core.
// A capacity figure, as `turn.per_s` is: the members first answer WARMUP_ROUNDS turns of every chat, so the timed ones
// run on code V8 has compiled and on sessions that exist, as in a gateway that has run a while.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectCluster } from '../store/cluster/connection.js';
import { machineCpuMs, mainThreadCpuMs, mainThreadWaitMs, treeCpuMs } from './process-cpu.js';
import { leasesOf, memberConfig, telegramAccounts } from '../tests/support/cluster-gateways.js';
import { startGatewayModel } from '../tests/support/gateway-model.js';
import { startGatewayProcess, type GatewayProcess } from '../tests/support/gateway-process.js';
import { startNatsServer } from '../tests/support/nats-server.js';
import { TelegramEmulator } from '../tests/support/telegram-emulator.js';

const TOKEN = '820001:bench-one-bot';
const CHATS = 40;
const WARMUP_ROUNDS = 5;
const ROUNDS = 6;
const PARTITIONS = 8;
/** The corpus `search_files` reads at every turn: files of 64 KB of text with no match, about 0.07 ms of CPU each. */
const FILES = Number(process.env.ONE_BOT_FILES ?? 360);
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const userOf = (chat: number): number => 9500 + chat;

/** A shared workspace whose `corpus` folder a search reads whole (no line matches the pattern). */
function workspace(): string {
  const dir = mkdtempSync(join(tmpdir(), 'tern-one-bot-'));
  mkdirSync(join(dir, 'corpus'));
  const line = 'the quick brown fox jumps over the lazy dog while the cluster shares one busy bot\n';
  for (let i = 0; i < FILES; i++) writeFileSync(join(dir, 'corpus', `f${i}.txt`), line.repeat(800));
  return dir;
}

/**
 * One run: turns per second, and the CPU (ms) each member (its process tree) and the NATS server used meanwhile. A
 * member's event loop (`memberLoopCpuMs`) bounds what one member can do; its other threads and the other processes
 * share the second core, so they bound what a second member can add.
 */
export interface OneBotRun {
  turnsPerS: number;
  memberCpuMs: number[];
  /** Of `memberCpuMs`, the main thread's: the member's event loop. */
  memberLoopCpuMs: number[];
  natsCpuMs: number;
  /** The CPU (ms) of this process meanwhile: the Telegram emulator, the model server and the bench's own waiting. */
  benchCpuMs: number;
  /**
   * How long (ms) each member's event loop was ready to run but waited for a CPU (another thread or process had it).
   */
  memberLoopWaitMs: number[];
  /** The CPU (ms) the whole machine used meanwhile, this run's processes and everything else on it. */
  machineCpuMs: number;
  seconds: number;
  /** How many of the session partitions each member held when the burst started. */
  partitionsHeld: number[];
}

/** Turns per second of one bot's 40 chats, each asking ROUNDS searches at once, over `size` members. */
export async function oneBotTurnsPerSecond(size: number): Promise<number> {
  return (await oneBotRun(size)).turnsPerS;
}

export async function oneBotRun(size: number): Promise<OneBotRun> {
  const server = await startNatsServer();
  const emulator = await TelegramEmulator.start(undefined, { offsets: true });
  const model = await startGatewayModel();
  const shared = workspace();
  const members: GatewayProcess[] = [];
  try {
    const channels = telegramAccounts(['tg1'], [TOKEN], emulator.url);
    for (let i = 0; i < size; i++) {
      const id = `one-bot-${i}`;
      const config = await memberConfig({ url: server.url, id, modelUrl: model.url, channels });
      const cluster = { url: server.url, id, lease_ttl_ms: 5_000, session_partitions: PARTITIONS };
      members.push(
        await startGatewayProcess({ ...config, cluster, agents: { defaults: { model: 'fast', workspace: shared } } }),
      );
    }
    const nc = await connectCluster(server.url);
    let partitionsHeld: number[] = [];
    try {
      const deadline = Date.now() + 90_000;
      for (;;) {
        const held = await leasesOf(nc, 'session');
        const holders = new Set(held.map((l) => l.gateway));
        // Spread as the members' fair share settles it (4 and 4 of 8): the burst started at 7 and 1 (the second
        // member had just joined) measured one member doing nearly all the work.
        const fair = Math.floor(PARTITIONS / size);
        const even = members.every((_, i) => held.filter((l) => l.gateway === `one-bot-${i}`).length >= fair);
        if (held.length === PARTITIONS && holders.size === size && even && (await leasesOf(nc, 'channel')).length) {
          partitionsHeld = members.map((_, i) => held.filter((l) => l.gateway === `one-bot-${i}`).length);
          break;
        }
        if (Date.now() > deadline) throw new Error(`the partitions were not spread: ${JSON.stringify(held)}`);
        await sleep(200);
      }
    } finally {
      await nc.close();
    }
    // Every chat asks `rounds` searches at once (none matches); resolves once all are answered.
    let asked = 0;
    const burst = async (rounds: number): Promise<void> => {
      for (let round = asked; round < asked + rounds; round++)
        for (let chat = 0; chat < CHATS; chat++)
          await emulator.say(TOKEN, `SEARCH zq${round}x`, { userId: userOf(chat) });
      asked += rounds;
      for (let chat = 0; chat < CHATS; chat++) await emulator.waitForBotMessages(TOKEN, userOf(chat), asked, 600_000);
    };
    await burst(WARMUP_ROUNDS);
    const pids = members.map((m) => m.child.pid!);
    const cpu = (): number[] => [
      ...pids.map((pid) => treeCpuMs(pid)),
      treeCpuMs(server.pid),
      ...pids.map((pid) => mainThreadCpuMs(pid)),
      ...pids.map((pid) => mainThreadWaitMs(pid)),
      machineCpuMs(),
    ];
    const cpuBefore = cpu();
    const ownBefore = process.cpuUsage();
    const started = performance.now();
    await burst(ROUNDS);
    const seconds = (performance.now() - started) / 1000;
    const used = cpu().map((ms, i) => Math.round(ms - cpuBefore[i]!));
    const own = process.cpuUsage(ownBefore);
    return {
      turnsPerS: (CHATS * ROUNDS) / seconds,
      memberCpuMs: used.slice(0, size),
      memberLoopCpuMs: used.slice(size + 1, 2 * size + 1),
      memberLoopWaitMs: used.slice(2 * size + 1, 3 * size + 1),
      machineCpuMs: used[3 * size + 1]!,
      natsCpuMs: used[size]!,
      benchCpuMs: Math.round((own.user + own.system) / 1000),
      seconds,
      partitionsHeld,
    };
  } finally {
    for (const member of members) await member.stop().catch(() => undefined);
    for (const member of members) member.home.remove();
    await emulator.stop();
    await model.close();
    await server.close();
    rmSync(shared, { recursive: true, force: true });
  }
}

// Run alone (`node --import tsx bench/one-bot.ts [members]`): prints that run's turns per second, for farm-bench.
if (process.argv[1]?.endsWith('one-bot.ts')) {
  const size = Number(process.argv[2] ?? 1);
  const run = await oneBotRun(size);
  process.stdout.write(`${run.turnsPerS.toFixed(1)} turns/s with ${size} member(s)\n`);
  process.stderr.write(`${JSON.stringify({ size, ...run })}\n`);
  const turns = CHATS * ROUNDS;
  const perTurn = (ms: number): string => (ms / turns).toFixed(1);
  const members = run.memberCpuMs.map(
    (ms, i) => `member ${i} ${perTurn(ms)} (loop ${perTurn(run.memberLoopCpuMs[i]!)})`,
  );
  const rest = `nats-server ${perTurn(run.natsCpuMs)}, bench ${perTurn(run.benchCpuMs)}`;
  process.stderr.write(`ms of CPU per turn: ${members.join(', ')}, ${rest}\n`);
  // Whether the run had the machine: the cores this run's processes used, what everything else took meanwhile, and
  // how long each member's event loop was ready to run but waited for a CPU.
  const cores = (ms: number): string => (ms / 1000 / run.seconds).toFixed(2);
  const ours = [...run.memberCpuMs, run.natsCpuMs, run.benchCpuMs].reduce((a, b) => a + b, 0);
  const waits = run.memberLoopWaitMs.map((ms) => `${Math.round(ms)} ms`).join(', ');
  process.stderr.write(
    `cores busy: this run ${cores(ours)}, the rest of the machine ${cores(run.machineCpuMs - ours)}; ` +
      `the loops waited for a CPU ${waits} in ${run.seconds.toFixed(1)} s\n`,
  );
}
