// A gateway under a long run, as users run it (the bundled `tern gateway`, its V8 memory mode, the Telegram Bot
// API emulator, a model in a child process that answers at once with one tool call per turn):
// - `turn.rss_after_20k_100_sessions_mb` / `turn.rss_after_20k_one_session_mb`: its resident memory after 20,000
//   turns across 100 chats, and after 20,000 turns in one chat (summaries every ~20 turns keep its history short);
//   `turn.rss_after_20k_mb` is the larger of the two.
// - `turn.history_first_turn_ratio`: the first turn after a restart in a session of 5,000 turns against the first
//   turn of a new session, on gateways started the same way on the same log: the turn's CPU (from the message to
//   its reply, history loaded included) and the process's RSS after it, the larger of the two ratios (medians).
// A shorter run for iterating: SOAK_TURNS (20,000), SOAK_SESSIONS (100), SOAK_LONG_SESSION (5,000), SOAK_RATIO_RUNS
// (5). Progress goes to stderr.
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeConfig } from '../tests/support/turn-fixture.js';
import { freePort, TelegramEmulator } from '../tests/support/telegram-emulator.js';
import { tempHome, type TempHome } from '../tests/support/temp-home.js';
import { ensureWorkspace } from '../store/workspace.js';
import { bundleCli, rssMb, untilReady } from './gateway-run.js';
import { percentile, round, type BenchRow } from './row.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const TOKEN = '200001:soak-bot-token';
const TURNS = Number(process.env.SOAK_TURNS ?? 20_000);
const LONG_SESSION = Number(process.env.SOAK_LONG_SESSION ?? 5000);
const SESSIONS = Number(process.env.SOAK_SESSIONS ?? 100);
/** Messages a single chat keeps waiting for the gateway, so one session's turns follow each other without a pause. */
const PIPELINE = 20;
const RATIO_RUNS = Number(process.env.SOAK_RATIO_RUNS ?? 5);

const progress = (line: string): void => void process.stderr.write(`soak: ${line}\n`);

async function instantModel(): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'bench', 'instant-model.ts')], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.once('error', reject);
    child.stdout!.once('data', (line: Buffer) => resolve(line.toString().trim()));
  });
  return { child, url };
}

interface Gateway {
  child: ChildProcess;
  stop(): Promise<void>;
}

/** `tern gateway` on `home` with one Telegram bot; resolves once `/ready`, with the engine loaded. */
async function startGateway(
  bin: string,
  home: TempHome,
  modelUrl: string,
  emulator: TelegramEmulator,
): Promise<Gateway> {
  const port = await freePort();
  writeConfig(home.home, modelUrl);
  const config = JSON.parse(readFileSync(join(home.home, 'config.json'), 'utf8')) as Record<string, unknown>;
  config.gateway = { port };
  config.heartbeat = { enabled: false };
  config.channel_list = {
    telegram: {
      enabled: true,
      // Every chat is a user the bot answers: an empty allow_from now asks each sender to pair, and gets no turn.
      settings: { token: TOKEN, base_url: emulator.url, poll_timeout_seconds: 1, allow_from: ['*'] },
    },
  };
  writeFileSync(join(home.home, 'config.json'), JSON.stringify(config));
  const child = spawn(bin, ['gateway'], { env: home.env, stdio: 'ignore' });
  await untilReady(port, performance.now(), 'the gateway');
  // The engine loads 100 ms after the channels have reported; the turns measured start after it.
  await new Promise((resolve) => setTimeout(resolve, 1500));
  return {
    child,
    stop: async () => {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGINT');
      await exited;
    },
  };
}

/**
 * CPU time the process's threads have used (ms), from each thread's schedstat (nanoseconds): /proc/<pid>/stat counts
 * in 10 ms ticks, as coarse as the turn being measured.
 */
function cpuMs(pid: number): number {
  let ns = 0;
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // A thread that ended between the listing and the read.
    }
  }
  return ns / 1e6;
}

/**
 * Runs `total` turns through the emulator: each chat keeps `depth` messages waiting and sends the next when a reply
 * comes, so every chat's session is busy the whole time. Resolves when every turn is answered.
 */
function drive(emulator: TelegramEmulator, chats: number[], total: number, depth: number): Promise<void> {
  return new Promise((resolve, reject) => {
    let sent = 0;
    let answered = 0;
    // One message at a time: the emulator numbers a message after an await, so two added in the same tick share a
    // message id, and the gateway rightly drops the second as a redelivery (a chat of 20 waiting lost 19 of them).
    let saying = Promise.resolve();
    const say = (chat: number): void => {
      if (sent >= total) return;
      sent++;
      const text = `turn ${sent}`;
      saying = saying.then(() => emulator.say(TOKEN, text, { userId: chat })).then(() => undefined, reject);
    };
    const started = performance.now();
    const onReply = (): void => {
      answered++;
      if (answered % 2000 === 0)
        progress(`${answered} of ${total} turns in ${Math.round((performance.now() - started) / 1000)} s`);
      const last = emulator.server.storage.botMessages.at(-1);
      if (answered >= total) {
        emulator.server.off('AddedBotMessage', onReply);
        resolve();
        return;
      }
      say(Number(last?.message.chat_id));
    };
    emulator.server.on('AddedBotMessage', onReply);
    for (const chat of chats) for (let i = 0; i < depth; i++) say(chat);
  });
}

/** One turn in `chat` on a running gateway: its CPU (ms) and the process's RSS (MB) after it. */
async function oneTurn(
  emulator: TelegramEmulator,
  gateway: Gateway,
  chat: number,
): Promise<{ cpu: number; rss: number }> {
  const pid = gateway.child.pid!;
  const before = cpuMs(pid);
  const replies = emulator.botMessages(TOKEN, chat).length;
  await emulator.say(TOKEN, 'how are you?', { userId: chat });
  await emulator.waitForBotMessages(TOKEN, chat, replies + 1, 60_000);
  return { cpu: cpuMs(pid) - before, rss: rssMb(pid) };
}

async function rssAfter(bin: string, modelUrl: string, chats: number[], depth: number): Promise<number> {
  progress(`${TURNS} turns in ${chats.length} session(s)`);
  const home = tempHome();
  ensureWorkspace(home.workspace);
  const emulator = await TelegramEmulator.start();
  const gateway = await startGateway(bin, home, modelUrl, emulator);
  try {
    await drive(emulator, chats, TURNS, depth);
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const rss = rssMb(gateway.child.pid!);
    progress(`RSS ${round(rss, 1)} MB`);
    return rss;
  } finally {
    await gateway.stop();
    await emulator.stop();
    home.remove();
  }
}

async function historyRatio(bin: string, modelUrl: string): Promise<{ cpu: number; rss: number }> {
  const home = tempHome();
  ensureWorkspace(home.workspace);
  const emulator = await TelegramEmulator.start();
  const LONG = 7001;
  progress(`a session of ${LONG_SESSION} turns, then ${RATIO_RUNS} restarts for it and for a new session`);
  try {
    const filling = await startGateway(bin, home, modelUrl, emulator);
    await drive(emulator, [LONG], LONG_SESSION, PIPELINE).finally(() => filling.stop());
    const old: Array<{ cpu: number; rss: number }> = [];
    const fresh: Array<{ cpu: number; rss: number }> = [];
    for (let run = 0; run < RATIO_RUNS; run++) {
      for (const [chat, into] of [
        [LONG, old],
        [8000 + run, fresh],
      ] as const) {
        const gateway = await startGateway(bin, home, modelUrl, emulator);
        try {
          into.push(await oneTurn(emulator, gateway, chat));
        } finally {
          await gateway.stop();
        }
      }
    }
    const median = (values: number[]): number =>
      percentile(
        [...values].sort((a, b) => a - b),
        50,
      );
    progress(`first turns, long session: ${old.map((m) => `${round(m.cpu)} ms ${round(m.rss, 1)} MB`).join(', ')}`);
    progress(`first turns, new session: ${fresh.map((m) => `${round(m.cpu)} ms ${round(m.rss, 1)} MB`).join(', ')}`);
    return {
      cpu: median(old.map((m) => m.cpu)) / median(fresh.map((m) => m.cpu)),
      rss: median(old.map((m) => m.rss)) / median(fresh.map((m) => m.rss)),
    };
  } finally {
    await emulator.stop();
    home.remove();
  }
}

export async function bench(): Promise<BenchRow[]> {
  const bin = bundleCli(join(root, '.tern-bench', 'soak'));
  const model = await instantModel();
  try {
    const spread = await rssAfter(
      bin,
      model.url,
      Array.from({ length: SESSIONS }, (_, i) => 6000 + i),
      1,
    );
    const single = await rssAfter(bin, model.url, [6500], PIPELINE);
    const ratio = await historyRatio(bin, model.url);
    return [
      { name: 'turn.rss_after_20k_mb', value: round(Math.max(spread, single), 1), unit: 'MB' },
      { name: 'turn.rss_after_20k_100_sessions_mb', value: round(spread, 1), unit: 'MB' },
      { name: 'turn.rss_after_20k_one_session_mb', value: round(single, 1), unit: 'MB' },
      { name: 'turn.history_first_turn_ratio', value: round(Math.max(ratio.cpu, ratio.rss)), unit: 'x' },
      { name: 'turn.history_first_turn_cpu_ratio', value: round(ratio.cpu), unit: 'x' },
      { name: 'turn.history_first_turn_rss_ratio', value: round(ratio.rss), unit: 'x' },
    ];
  } finally {
    model.child.stdin!.end();
  }
}
