// Recall figures over a log of 100,000 past turns (message.routed, turn.started, turn.completed each, in 100 chats):
// - `memory.search_ms_100k_turns`: p50 of a full-text `Recall.search` (memory files and conversations);
// - `memory.index_rss_mb_100k_turns`: how much the process's resident memory grew (after GC) when the index was built,
//   measured in a child process that does nothing else;
// - `memory.reindex_s_100k_turns`: building the index from the log.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { validateDraft, type ValidDraft } from '../bus/index.js';
import { EventLog } from '../store/log/event-log.js';
import { Recall } from '../store/memory/recall.js';
import { percentile, round, type BenchRow } from './row.js';

const TURNS = 100_000;
const CHATS = 100;
const QUERIES = 60;
const YEAR_MS = 365 * 24 * 3600 * 1000;

/** mulberry32: the same figures on every run. */
let seed = 42;
function random(): number {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
/** 20,000 made-up words of three or four syllables, drawn by Zipf's law (the n-th most common with weight 1/n). */
const SYLLABLES = [
  'ka',
  'lo',
  'mi',
  'ne',
  'ru',
  'sa',
  'ti',
  'vo',
  'be',
  'da',
  'fu',
  'go',
  'ha',
  'je',
  'pi',
  'zo',
  'wan',
  'tor',
  'mel',
  'kis',
];
const WORDS = Array.from({ length: 20_000 }, (_, i) => {
  const digits = [i % 20, Math.floor(i / 20) % 20, Math.floor(i / 400) % 20, Math.floor(i / 8000)];
  return digits
    .slice(0, i < 8000 ? 3 : 4)
    .map((d) => SYLLABLES[d]!)
    .join('');
});
const CUMULATIVE: number[] = [];
for (let i = 0, sum = 0; i < WORDS.length; i++) CUMULATIVE.push((sum += 1 / (i + 1)));
function word(): string {
  const target = random() * CUMULATIVE.at(-1)!;
  let low = 0;
  let high = CUMULATIVE.length - 1;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (CUMULATIVE[mid]! < target) low = mid + 1;
    else high = mid;
  }
  return WORDS[low]!;
}
/** Every other word is a common English one, as in chat messages. */
const COMMON = [
  'the',
  'I',
  'you',
  'to',
  'a',
  'and',
  'it',
  'is',
  'in',
  'that',
  'what',
  'about',
  'my',
  'for',
  'on',
  'we',
];
const sentence = (n: number) =>
  Array.from({ length: n }, (_, i) => (i % 2 ? COMMON[Math.floor(random() * COMMON.length)]! : word())).join(' ');

const settings = {
  model_name: 'fast',
  stream: false,
  max_tool_iterations: 20,
  loop_detection: { enabled: false, repeat_threshold: 3, critical_threshold: 6, window_size: 20 },
};

function turnDrafts(i: number, start: number): ValidDraft[] {
  const chat = `chat-${i % CHATS}`;
  const session = `sk_v1_${String(i % CHATS).padStart(64, '0')}`;
  const keys = { agent: 'main', session, turn: `t_${i.toString(36).padStart(8, '0')}` };
  const at = start + Math.floor((i / TURNS) * YEAR_MS);
  const message_id = `m${i}`;
  return [
    validateDraft({
      agent: 'main',
      session,
      type: 'message.routed',
      at,
      data: {
        message_id,
        channel: 'telegram',
        account: 'default',
        chat,
        sender: `user-${i % CHATS}`,
        text: '',
        session_key: chat,
        remote: true,
        media: [],
      },
    }),
    validateDraft({
      ...keys,
      type: 'turn.started',
      at,
      data: { message_id, channel: 'telegram', chat, text: sentence(14), session_key: chat, settings },
    }),
    validateDraft({ ...keys, type: 'turn.completed', at: at + 900, data: { reply: sentence(30), iterations: 1 } }),
  ];
}

async function writeLog(dir: string): Promise<void> {
  const log = EventLog.open(dir);
  const start = Date.UTC(2026, 0, 1);
  for (let i = 0; i < TURNS; i++) {
    for (const draft of turnDrafts(i, start)) log.append(draft);
    if (i % 1000 === 999) await new Promise((resolve) => setImmediate(resolve));
  }
  await log.flushed();
  log.close();
}

/** The child: opens the log, builds recall, prints the RSS growth and the build time as JSON. */
async function child(workspace: string): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc!;
  const log = EventLog.open(join(workspace, 'sessions'), { readOnly: true });
  // The log's pages are mapped into this process as they are read: read them all first, so the growth is the index's.
  for (const _ of log.iterate()) void _;
  // A collection frees pages as its sweeper threads reach them, later on a busy machine: collect until the resident
  // size stops falling, so the figure is the index's and not how busy the machine was.
  const settle = async () => {
    let last = Number.POSITIVE_INFINITY;
    for (let i = 0; i < 20; i++) {
      gc();
      await new Promise((resolve) => setTimeout(resolve, 100));
      const rss = process.memoryUsage().rss;
      if (i >= 2 && rss >= last) return;
      last = rss;
    }
  };
  await settle();
  const before = process.memoryUsage().rss;
  const started = performance.now();
  const recall = Recall.open(log, workspace);
  const seconds = (performance.now() - started) / 1000;
  await settle();
  const grown = (process.memoryUsage().rss - before) / 2 ** 20;
  const viewer = { agent: 'main', channel: 'telegram', chat: 'chat-0', scope: 'shared' as const };
  const times: number[] = [];
  for (let q = 0; q < QUERIES; q++) {
    const query = `what did I tell you about the ${word()} ${word()}`;
    const t = performance.now();
    recall.search(query, viewer, 6);
    times.push(performance.now() - t);
  }
  process.stdout.write(
    JSON.stringify({
      turns: recall.turns,
      seconds,
      grown,
      p50: percentile(
        times.sort((a, b) => a - b),
        50,
      ),
    }),
  );
  log.close();
}

export async function bench(): Promise<BenchRow[]> {
  const workspace = mkdtempSync(join(tmpdir(), 'tern-bench-memory-'));
  try {
    mkdirSync(join(workspace, 'memory'));
    writeFileSync(
      join(workspace, 'memory', 'MEMORY.md'),
      `# Memory\n\n${Array.from({ length: 40 }, () => sentence(20)).join('\n\n')}\n`,
    );
    await writeLog(join(workspace, 'sessions'));
    const out = await new Promise<string>((resolve, reject) => {
      const proc = spawn(
        process.execPath,
        ['--expose-gc', '--import', 'tsx', fileURLToPath(import.meta.url), '--child', workspace],
        { stdio: ['ignore', 'pipe', 'inherit'] },
      );
      let text = '';
      proc.stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
      proc.on('error', reject);
      proc.on('exit', (code) => (code === 0 ? resolve(text) : reject(new Error(`memory bench child exited ${code}`))));
    });
    const figures = JSON.parse(out) as { turns: number; seconds: number; grown: number; p50: number };
    if (figures.turns !== TURNS) throw new Error(`recall indexed ${figures.turns} turns, not ${TURNS}`);
    return [
      { name: 'memory.search_ms_100k_turns', value: round(figures.p50), unit: 'ms' },
      { name: 'memory.index_rss_mb_100k_turns', value: round(figures.grown, 1), unit: 'MB' },
      { name: 'memory.reindex_s_100k_turns', value: round(figures.seconds, 1), unit: 's' },
    ];
  } finally {
    rmSync(workspace, { recursive: true, force: true });
  }
}

if (process.argv[2] === '--child') await child(process.argv[3]!);
