// The turn engine without the model: a loopback chat-completions server that answers at once, one tool call
// per turn (two model calls). Overhead is a turn's wall time minus the time spent inside model calls.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sessionKeyOf } from '../actors/agent.js';
import { Runtime } from '../actors/runtime.js';
import { loadConfig } from '../store/config/index.js';
import { writeConfig } from '../tests/support/turn-fixture.js';
import { tempHome } from '../tests/support/temp-home.js';
import { percentile, round, type BenchRow } from './row.js';

const SEQUENTIAL_TURNS = 400;
const CONCURRENT_SESSIONS = 100;
const CONCURRENT_ROUNDS = 10;
const LEAK_TURNS = Number(process.env.LEAK_TURNS ?? 10_000);

const toolAnswer = JSON.stringify({
  id: 'b', object: 'chat.completion', created: 1, model: 'm',
  choices: [{ index: 0, finish_reason: 'tool_calls', message: { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'todo', arguments: '{"action":"read"}' } }] } }],
  usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
});
const textAnswer = JSON.stringify({
  id: 'b', object: 'chat.completion', created: 1, model: 'm',
  choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'done' } }],
  usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
});

/** Answers a tool call to a user message and text to a tool result, at once. */
async function instantModel(): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString();
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(body.includes('"role":"tool"') ? textAnswer : toolAnswer);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

function message(text: string, session: string) {
  return { channel: 'cli', account: 'default', chat: `direct:${session}`, sender: 'bench', messageId: `m${Math.random()}`, text, remote: false };
}

export async function bench(): Promise<BenchRow[]> {
  const home = tempHome();
  const model = await instantModel();
  writeConfig(home.home, model.url);
  const runtime = Runtime.start({ loaded: loadConfig({ env: home.env }), env: home.env, command: 'bench', logError: () => {} });
  const agent = runtime.agent();
  let modelMs = 0;
  const asked = new Map<string, number>();
  runtime.bus.on('provider.requested').subscribe((e) => asked.set(e.turn!, performance.now()));
  runtime.bus.on('provider.responded').subscribe((e) => (modelMs += performance.now() - (asked.get(e.turn!) ?? performance.now())));
  const turn = (session: string, i: number) => agent.handle(sessionKeyOf({ agent: agent.id, channel: 'cli', dimensions: [['chat', `direct:${session}`]] }), message(`turn ${i}`, session));
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
    const started = performance.now();
    for (let round = 0; round < CONCURRENT_ROUNDS; round++) {
      await Promise.all(Array.from({ length: CONCURRENT_SESSIONS }, (_, s) => turn(`c${s}`, round)));
    }
    const perSecond = (CONCURRENT_SESSIONS * CONCURRENT_ROUNDS) / ((performance.now() - started) / 1000);
    for (let done = 0; done < LEAK_TURNS; done += CONCURRENT_SESSIONS) {
      await Promise.all(Array.from({ length: CONCURRENT_SESSIONS }, (_, s) => turn(`leak${s}`, done)));
    }
    global.gc?.();
    const { rss, heapUsed } = process.memoryUsage();
    return [
      { name: 'turn.overhead_p50_ms', value: round(percentile(overheads, 50)), unit: 'ms' },
      { name: 'turn.overhead_p99_ms', value: round(percentile(overheads, 99)), unit: 'ms' },
      { name: 'turn.per_s', value: Math.round(perSecond), unit: 'turns/s' },
      // RSS includes the pages of the log's memory map that the 10k turns wrote; the heap is the process's own.
      { name: 'turn.rss_after_10k_mb', value: round(rss / 1048576, 1), unit: 'MB' },
      { name: 'turn.heap_after_10k_mb', value: round(heapUsed / 1048576, 1), unit: 'MB' },
    ];
  } finally {
    await runtime.close();
    await new Promise((resolve) => model.server.close(resolve));
    home.remove();
  }
}
