// The turn engine without the model: a loopback chat-completions server that answers at once, one tool call
// per turn (two model calls). Overhead is a turn's wall time minus the time spent inside model calls.
// The model server runs in a child process (bench/instant-model.ts): its CPU is not Tern's. The workspace is
// onboarded (starter files present), as a user's is.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { sessionKeyOf } from '../actors/agent.js';
import type { SessionRequest } from '../actors/routing.js';
import { Runtime } from '../actors/runtime.js';
import { loadConfig } from '../store/config/index.js';
import { ensureWorkspace } from '../store/workspace.js';
import { writeConfig } from '../tests/support/turn-fixture.js';
import { tempHome } from '../tests/support/temp-home.js';
import { instantModel } from './model-process.js';
import { percentile, round, type BenchRow } from './row.js';

const SEQUENTIAL_TURNS = 400;
const CONCURRENT_SESSIONS = 100;
// turns/s is a capacity figure, so it is taken once V8 has compiled most of the turn path: per-turn CPU falls most over
// the first few thousand concurrent turns, with TurboFan compiling the whole time (`--trace-opt`: 244 compiles during
// turns 300–3,300), and slowly after (docs/benchmarks.md). The warm-up rounds run on the measured sessions.
const CONCURRENT_WARMUP_ROUNDS = 30;
const CONCURRENT_ROUNDS = 20;
const LEAK_TURNS = Number(process.env.LEAK_TURNS ?? 10_000);
// A fifth of the turns (2,000 of the default 10,000), on a round of sessions, so a short LEAK_TURNS still has turns
// after it.
const LEAK_BASELINE_TURNS = Math.max(100, Math.floor(LEAK_TURNS / 5 / 100) * 100);

// The heap figure is what survives a full collection, so it shows retained memory rather than garbage not yet swept.
setFlagsFromString('--expose_gc');
const collectGarbage = runInNewContext('gc') as () => void;

/** Resident pages of the event log's memory map (Linux): file pages the kernel may drop, not process memory. */
function logMapMb(logFile: string): number | undefined {
  if (!existsSync('/proc/self/smaps')) return undefined;
  let inLog = false;
  let kb = 0;
  for (const line of readFileSync('/proc/self/smaps', 'utf8').split('\n')) {
    if (/^[0-9a-f]+-[0-9a-f]+ /.test(line)) inLog = line.endsWith(logFile);
    else if (inLog && line.startsWith('Rss:')) kb += Number(line.split(/\s+/)[1]);
  }
  return round(kb / 1024, 1);
}

function message(text: string, session: string): SessionRequest {
  const session_key = sessionKeyOf({ agent: 'main', channel: 'cli', dimensions: [['chat', `direct:${session}`]] });
  return {
    agent: 'main',
    session_key,
    channel: 'cli',
    chat: `direct:${session}`,
    sender: 'bench',
    message_id: `m${Math.random()}`,
    text,
    remote: false,
  };
}

export async function bench(): Promise<BenchRow[]> {
  const home = tempHome();
  const model = await instantModel();
  writeConfig(home.home, model.url);
  ensureWorkspace(home.workspace);
  const runtime = Runtime.start({
    loaded: loadConfig({ env: home.env }),
    env: home.env,
    command: 'bench',
    logError: () => {},
  });
  let modelMs = 0;
  const asked = new Map<string, number>();
  runtime.bus.on('provider.requested').subscribe((e) => asked.set(e.turn!, performance.now()));
  runtime.bus.on('provider.responded').subscribe((e) => {
    modelMs += performance.now() - (asked.get(e.turn!) ?? performance.now());
    asked.delete(e.turn!);
  });
  const turn = (session: string, i: number) => runtime.ask(message(`turn ${i}`, session));
  const concurrentRound = (prefix: string, i: number) =>
    Promise.all(Array.from({ length: CONCURRENT_SESSIONS }, (_, s) => turn(`${prefix}${s}`, i)));
  try {
    for (let i = 0; i < 50; i++) await turn(`warm${i % 5}`, i);
    const overheads: number[] = [];
    for (let i = 0; i < SEQUENTIAL_TURNS; i++) {
      modelMs = 0;
      const started = performance.now();
      await turn(`seq${i % 20}`, i);
      overheads.push(performance.now() - started - modelMs);
    }
    overheads.sort((a, b) => a - b);
    for (let round = 0; round < CONCURRENT_WARMUP_ROUNDS; round++) await concurrentRound('c', round);
    const started = performance.now();
    const cpuBefore = process.cpuUsage();
    for (let round = 0; round < CONCURRENT_ROUNDS; round++)
      await concurrentRound('c', CONCURRENT_WARMUP_ROUNDS + round);
    const perSecond = (CONCURRENT_SESSIONS * CONCURRENT_ROUNDS) / ((performance.now() - started) / 1000);
    const cpu = process.cpuUsage(cpuBefore);
    const cpuPerTurnMs = (cpu.user + cpu.system) / 1000 / (CONCURRENT_SESSIONS * CONCURRENT_ROUNDS);
    // The first rounds create the sessions; the heap after them is the baseline a per-turn leak would grow from.
    let baseline = { heap: 0, turns: 0 };
    for (let done = 0; done < LEAK_TURNS; done += CONCURRENT_SESSIONS) {
      await concurrentRound('leak', done);
      if (done + CONCURRENT_SESSIONS !== LEAK_BASELINE_TURNS) continue;
      collectGarbage();
      baseline = { heap: process.memoryUsage().heapUsed, turns: LEAK_BASELINE_TURNS };
    }
    collectGarbage();
    const { rss, heapUsed } = process.memoryUsage();
    const logMap = logMapMb(join(home.sessions, 'data.mdb'));
    const growthPer1k =
      baseline.turns > 0 ? (heapUsed - baseline.heap) / 1024 / ((LEAK_TURNS - baseline.turns) / 1000) : 0;
    return [
      { name: 'turn.overhead_p50_ms', value: round(percentile(overheads, 50)), unit: 'ms' },
      { name: 'turn.overhead_p99_ms', value: round(percentile(overheads, 99)), unit: 'ms' },
      { name: 'turn.per_s', value: Math.round(perSecond), unit: 'turns/s' },
      // The process's CPU (all its threads, the log's writer included) per turn of the concurrent rounds: steadier
      // than turns/s on a shared machine, and 1 ms is what 1,000 turns/s on one core allows.
      { name: 'turn.cpu_per_turn_ms', value: round(cpuPerTurnMs), unit: 'ms' },
      // RSS includes the pages of the log's memory map that the 10k turns wrote; the heap is the process's own.
      { name: 'turn.rss_after_10k_mb', value: round(rss / 1048576, 1), unit: 'MB' },
      { name: 'turn.heap_after_10k_mb', value: round(heapUsed / 1048576, 1), unit: 'MB' },
      ...(logMap === undefined ? [] : [{ name: 'turn.rss_log_map_after_10k_mb', value: logMap, unit: 'MB' }]),
      { name: 'turn.heap_growth_per_1k_turns_kb', value: round(growthPer1k, 1), unit: 'KB' },
    ];
  } finally {
    await runtime.close();
    model.child.stdin!.end();
    home.remove();
  }
}
