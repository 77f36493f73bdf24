// What the event log costs on disk per turn, measured on a real runtime (its default tools) answered by the instant
// model (one tool call, then text):
// - `log.bytes_per_turn`: a short exchange, 20 turns in one session after 5 to warm up;
// - `log.bytes_per_turn_500_turn_session`: 500 turns in one session (its checkpoints included).
// Bytes are the pages the log's tables use (lmdb's own count), so page reuse and the file's growth steps do not blur
// them. LOG_SIZE_TURNS overrides the 500; LOG_SIZE_TABLES=1 prints each table's share to stderr.
// - `log.compact_100k_turns_s`: `compactLog` (what `tern log compact` runs) over a log of 100,000 tool turns of 17
//   events (bench/log.ts's), 100 sessions, one turn a minute, keeping the last day (LOG_COMPACT_TURNS overrides).
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Runtime } from '../actors/runtime.js';
import { loadConfig } from '../store/config/index.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { validateDraft } from '../bus/index.js';
import { compactLog } from '../store/log/compact.js';
import { EventLog } from '../store/log/event-log.js';
import { turnDrafts } from './log.js';
import { ensureWorkspace } from '../store/workspace.js';
import { message, writeConfig } from '../tests/support/turn-fixture.js';
import { tempHome } from '../tests/support/temp-home.js';
import { round, type BenchRow } from './row.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const LONG = Number(process.env.LOG_SIZE_TURNS ?? 500);

async function instantModel(): Promise<{ child: ChildProcess; url: string }> {
  const script = join(root, 'bench', 'instant-model.ts');
  const child = spawn(process.execPath, ['--import', 'tsx', script], { stdio: ['pipe', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    child.once('error', reject);
    child.stdout!.once('data', (line: Buffer) => resolve(line.toString().trim()));
  });
  return { child, url };
}

/** Bytes per turn over `turns` turns in one session, after `warm` turns not counted. */
async function perTurn(url: string, warm: number, turns: number): Promise<number> {
  const home = tempHome();
  writeConfig(home.home, url);
  ensureWorkspace(home.workspace);
  const loaded = loadConfig({ env: home.env });
  const runtime = Runtime.start({ loaded, env: home.env, command: 'bench', logError: () => {} });
  const log = runtime.log as EventLog;
  const ask = (i: number) => runtime.ask(message(`hello number ${i}, how are you?`, 's1'));
  try {
    for (let i = 0; i < warm; i++) await ask(i);
    await log.flushed();
    const before = log.storedBytes().total;
    for (let i = 0; i < turns; i++) await ask(warm + i);
    await log.flushed();
    const after = log.storedBytes();
    const tables = JSON.stringify(after.tables);
    if (process.env.LOG_SIZE_TABLES) process.stderr.write(`log-size: ${turns} turns: ${tables}\n`);
    return (after.total - before) / turns;
  } finally {
    await runtime.close();
    home.remove();
  }
}

const COMPACT_TURNS = Number(process.env.LOG_COMPACT_TURNS ?? 100_000);

/** Seconds `compactLog` takes over `turns` turns, one a minute up to now, keeping the last day. */
async function compactSeconds(turns: number): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'tern-bench-compact-'));
  try {
    const log = EventLog.open(join(dir, 'sessions'));
    const now = Date.now();
    for (let i = 0; i < turns; i++) {
      const at = now - (turns - i) * 60_000;
      for (const draft of turnDrafts(i)) log.append(validateDraft({ ...draft, at } as never));
      if (i % 50 === 49) await new Promise((resolve) => setImmediate(resolve));
    }
    await log.closeAfterFlush();
    const started = performance.now();
    await compactLog(join(dir, 'sessions'), { max_age_days: 1 });
    return (performance.now() - started) / 1000;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function bench(): Promise<BenchRow[]> {
  const model = await instantModel();
  try {
    const short = await perTurn(model.url, 5, 20);
    const long = await perTurn(model.url, 0, LONG);
    return [
      { name: 'log.bytes_per_turn', value: round(short), unit: 'bytes' },
      { name: 'log.bytes_per_turn_500_turn_session', value: round(long), unit: 'bytes' },
      { name: 'log.compact_100k_turns_s', value: round(await compactSeconds(COMPACT_TURNS)), unit: 's' },
    ];
  } finally {
    model.child.stdin!.end();
  }
}
