// Event log figures: batched appends, reads (full scan, by session, by turn) and follow latency from an
// append in this process to a second process seeing it.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { validateDraft, type ValidDraft } from '../bus/index.js';
import { EventLog } from '../store/log/event-log.js';
import { percentile, round, type BenchRow } from './row.js';

const EVENTS = 1_000_000;
const SESSIONS = 100;
const EVENTS_PER_TURN = 20;
const FOLLOW_SAMPLES = 300;

const sessionOf = (i: number) => `sk_v1_${String(i % SESSIONS).padStart(64, '0')}`;
const turnOf = (i: number) => `turn_${Math.floor(i / (SESSIONS * EVENTS_PER_TURN)) * SESSIONS + (i % SESSIONS)}`;

/** ~300-byte events: 100 sessions taking turns, 20 events per turn, as a busy gateway writes them. */
function draftAt(i: number): ValidDraft {
  return validateDraft({ type: 'provider.chunk', agent: 'main', session: sessionOf(i), turn: turnOf(i), data: { kind: 'text', delta: 'x'.repeat(120) } });
}

/** The log alone: drafts are validated before the clock starts (validation is the bus's cost, not the log's). */
async function appendRate(log: EventLog): Promise<number> {
  const template = draftAt(0);
  const drafts = Array.from({ length: EVENTS }, (_, i) => ({ ...template, session: sessionOf(i), turn: turnOf(i) }) as ValidDraft);
  const started = performance.now();
  for (let i = 0; i < EVENTS; i++) {
    log.append(drafts[i]!);
    // Let lmdb commit between bursts, as an event loop with I/O would.
    if (i % 1000 === 999) await new Promise((resolve) => setImmediate(resolve));
  }
  await log.flushed();
  return EVENTS / ((performance.now() - started) / 1000);
}

function readRate(read: () => number): number {
  const started = performance.now();
  const count = read();
  return count / ((performance.now() - started) / 1000);
}

async function followLatency(log: EventLog): Promise<number[]> {
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./follow-child.ts', import.meta.url)), log.dir], { stdio: ['ignore', 'pipe', 'inherit'] });
  const latencies: number[] = [];
  let text = '';
  child.stdout.on('data', (chunk: Buffer) => {
    text += chunk.toString();
    const lines = text.split('\n');
    text = lines.pop() ?? '';
    for (const line of lines) if (line.startsWith('lag ')) latencies.push(Number(line.slice(4)));
  });
  await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
  for (let i = 0; i < FOLLOW_SAMPLES; i++) {
    log.append(validateDraft({ type: 'heartbeat.ticked', at: Date.now(), data: { outcome: 'skipped', reason: 'bench' } }));
    await sleep(5 + (i % 7));
  }
  const deadline = Date.now() + 5000;
  while (latencies.length < FOLLOW_SAMPLES && Date.now() < deadline) await sleep(20);
  child.kill();
  return latencies.sort((a, b) => a - b);
}

export async function bench(): Promise<BenchRow[]> {
  const dir = mkdtempSync(join(tmpdir(), 'tern-bench-log-'));
  const log = EventLog.open(join(dir, 'sessions'));
  try {
    const appends = await appendRate(log);
    const scan = readRate(() => {
      let n = 0;
      for (const _ of log.iterate()) n++;
      return n;
    });
    const bySession = readRate(() => {
      let n = 0;
      for (let s = 0; s < 20; s++) n += log.read({ session: sessionOf(s) }).length;
      return n;
    });
    const byTurn = readRate(() => {
      let n = 0;
      for (let t = 0; t < 2000; t++) n += log.read({ turn: `turn_${t}` }).length;
      return n;
    });
    const lags = await followLatency(log);
    return [
      { name: 'log.append_per_s', value: Math.round(appends), unit: 'events/s' },
      { name: 'log.read_per_s', value: Math.round(scan), unit: 'events/s' },
      { name: 'log.read_session_per_s', value: Math.round(bySession), unit: 'events/s' },
      { name: 'log.read_turn_per_s', value: Math.round(byTurn), unit: 'events/s' },
      { name: 'log.follow_p50_ms', value: round(percentile(lags, 50)), unit: 'ms' },
      { name: 'log.follow_p99_ms', value: round(percentile(lags, 99)), unit: 'ms' },
    ];
  } finally {
    log.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
