// Event log figures: batched appends, reads (full scan, by session, by turn), follow latency from an
// append in this process to a second process seeing it, and the CPU cost of one event of a real turn on its
// whole way through the bus (validation, stamping, fan-out) into the log (encoding, the lmdb write).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import {
  InProcessBus,
  draftOf,
  validateDraft,
  type Correlation,
  type EventDraft,
  type ValidDraft,
} from '../bus/index.js';
import { EventLog } from '../store/log/event-log.js';
import { percentile, round, type BenchRow } from './row.js';

const EVENTS = 1_000_000;
const SESSIONS = 100;
const EVENTS_PER_TURN = 20;
const FOLLOW_SAMPLES = 300;
const BUS_TURNS = 10_000;
/** Distinct turns built ahead (drafts are copied by the bus, so each is published BUS_TURNS / BUS_DRAFTED times). */
const BUS_DRAFTED = 500;

const sessionOf = (i: number) => `sk_v1_${String(i % SESSIONS).padStart(64, '0')}`;
const turnOf = (i: number) => `turn_${Math.floor(i / (SESSIONS * EVENTS_PER_TURN)) * SESSIONS + (i % SESSIONS)}`;

/** ~300-byte events: 100 sessions taking turns, 20 events per turn, as a busy gateway writes them. */
function draftAt(i: number): ValidDraft {
  return validateDraft({
    type: 'provider.chunk',
    agent: 'main',
    session: sessionOf(i),
    turn: turnOf(i),
    data: { kind: 'text', delta: 'x'.repeat(120) },
  });
}

/** The log alone: drafts are validated before the clock starts (validation is the bus's cost, not the log's). */
async function appendRate(log: EventLog): Promise<number> {
  const template = draftAt(0);
  const drafts = Array.from(
    { length: EVENTS },
    (_, i) => ({ ...template, session: sessionOf(i), turn: turnOf(i) }) as ValidDraft,
  );
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

/** The 17 events of a tool turn as a gateway publishes them (shapes and sizes from a recorded run). */
export function turnDrafts(i: number): EventDraft[] {
  const session = sessionOf(i);
  const turn = `t_${i.toString(36).padStart(14, '0')}`;
  const keys: Correlation = { agent: 'main', session, turn };
  const sessionActor = { actor: `session:${session}`, machine: 'session' };
  const turnActor = { actor: `turn:${turn}`, machine: 'turn' };
  const moved = (from: string | undefined, to: string, event: string): EventDraft => ({
    ...keys,
    type: 'actor.transitioned',
    data: { ...turnActor, ...(from ? { from } : {}), to, event },
  });
  const call = { id: 'c1', name: 'todo', arguments: { action: 'read' } };
  const history = Array.from({ length: 5 }, (_, n) => [
    { role: 'user' as const, content: `turn ${n}` },
    { role: 'assistant' as const, content: 'done', tool_calls: [] },
  ]).flat();
  const settings = {
    model_name: 'fast',
    stream: false,
    max_tool_iterations: 20,
    loop_detection: { enabled: false, repeat_threshold: 3, critical_threshold: 6, window_size: 20 },
  };
  const drafts: EventDraft[] = [
    {
      agent: 'main',
      session,
      type: 'actor.transitioned',
      data: { ...sessionActor, from: 'idle', to: 'running', event: 'RECEIVED', context: { queued: 0 } },
    },
    {
      ...keys,
      type: 'turn.started',
      data: {
        message_id: `m${i}`,
        channel: 'cli',
        chat: 'direct:s1',
        text: `turn ${i}`,
        session_key: 'v=1|agent=main|channel=cli|account=default|chat=direct:s1',
        settings,
      },
    },
    moved(undefined, 'building_prompt', 'xstate.init'),
    {
      ...keys,
      type: 'prompt.built',
      data: {
        system: `## Identity\n\n${'You are Tern, a helpful assistant. '.repeat(48)}`,
        messages: [...history, { role: 'user', content: `turn ${i}` }],
        tools: [
          'read_file',
          'write_file',
          'edit_file',
          'append_file',
          'list_dir',
          'search_files',
          'exec',
          'web_search',
          'web_fetch',
          'load_image',
          'cron',
          'todo',
        ],
      },
    },
    {
      ...keys,
      type: 'provider.requested',
      data: { model_name: 'fast', stream: false, iteration: 1, message_count: 11 },
    },
    moved('building_prompt', 'calling_model', 'PROMPT_BUILT'),
    {
      ...keys,
      type: 'provider.responded',
      data: {
        text: '',
        tool_calls: [call],
        usage: { input_tokens: 1, output_tokens: 1 },
        finish_reason: 'tool_calls',
        iteration: 1,
      },
    },
    moved('calling_model', 'running_tools.running_tool', 'MODEL_ANSWERED'),
    { ...keys, type: 'tool.requested', data: { call_id: 'c1', name: 'todo', arguments: { action: 'read' } } },
    {
      ...keys,
      type: 'tool.completed',
      data: { call_id: 'c1', name: 'todo', ok: true, content: '{"todos":[],"total_count":0,"message":"No plan yet."}' },
    },
    {
      ...keys,
      type: 'provider.requested',
      data: { model_name: 'fast', stream: false, iteration: 2, message_count: 13 },
    },
    moved('running_tools.running_tool', 'calling_model', 'TOOL_RAN'),
    {
      ...keys,
      type: 'provider.responded',
      data: {
        text: 'done',
        tool_calls: [],
        usage: { input_tokens: 1, output_tokens: 1 },
        finish_reason: 'stop',
        iteration: 2,
      },
    },
    { ...keys, type: 'turn.completed', data: { reply: 'done', iterations: 2 } },
    moved('calling_model', 'done', 'MODEL_ANSWERED'),
    { ...keys, type: 'actor.stopped', data: { ...turnActor, reason: 'completed' } },
    {
      agent: 'main',
      session,
      type: 'actor.transitioned',
      data: { ...sessionActor, from: 'running', to: 'idle', event: 'FINISHED', context: { queued: 0 } },
    },
  ];
  // Rebuilt as publishers build drafts: spread-built ones take a slow V8 path (bus/draft.ts) that publishers avoid.
  return drafts.map(({ type, data, ...keys }) => draftOf(keys, type, data as never));
}

/** CPU (all threads, the lmdb writer's too) per event of a real turn published on a bus over its own log. */
async function busEventCpu(dir: string): Promise<number> {
  const log = EventLog.open(join(dir, 'bus-sessions'));
  const bus = new InProcessBus(log);
  // A gateway's usual listeners: a projection of everything and two watchers of single types.
  const subscriptions = [
    bus.events$.subscribe(() => {}),
    bus.on('provider.requested').subscribe(() => {}),
    bus.on('turn.completed').subscribe(() => {}),
  ];
  const turns = Array.from({ length: BUS_DRAFTED }, (_, i) => turnDrafts(i));
  const publish = async (count: number) => {
    for (let i = 0; i < count; i++) {
      for (const draft of turns[i % BUS_DRAFTED]!) bus.publish(draft);
      await new Promise((resolve) => setImmediate(resolve));
    }
    await log.flushed();
  };
  try {
    await publish(BUS_DRAFTED);
    const started = process.cpuUsage();
    await publish(BUS_TURNS);
    const { user, system } = process.cpuUsage(started);
    return (user + system) / (BUS_TURNS * turns[0]!.length);
  } finally {
    subscriptions.forEach((s) => s.unsubscribe());
    log.close();
  }
}

async function followLatency(log: EventLog): Promise<number[]> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', fileURLToPath(new URL('./follow-child.ts', import.meta.url)), log.dir],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
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
    log.append(
      validateDraft({ type: 'heartbeat.ticked', at: Date.now(), data: { outcome: 'skipped', reason: 'bench' } }),
    );
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
    const busCpu = await busEventCpu(dir);
    return [
      { name: 'log.append_per_s', value: Math.round(appends), unit: 'events/s' },
      { name: 'log.read_per_s', value: Math.round(scan), unit: 'events/s' },
      { name: 'log.read_session_per_s', value: Math.round(bySession), unit: 'events/s' },
      { name: 'log.read_turn_per_s', value: Math.round(byTurn), unit: 'events/s' },
      { name: 'log.follow_p50_ms', value: round(percentile(lags, 50)), unit: 'ms' },
      { name: 'log.follow_p99_ms', value: round(percentile(lags, 99)), unit: 'ms' },
      { name: 'log.turn_event_cpu_us', value: round(busCpu), unit: 'µs/event' },
    ];
  } finally {
    log.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
