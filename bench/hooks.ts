// Hooks: what one process hook adds to a tool call at before_tool, i.e. a JSON-RPC round trip over stdio to a
// node process answering `continue` (median of 1,000 asks after 100 warm-up asks), as the turn pipeline asks it.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ProcessHook } from '../adapters/hooks/process-hook.js';
import { HookSet } from '../actors/hooks/hook-set.js';
import type { HookInput } from '../bus/index.js';
import { percentile, round, type BenchRow } from './row.js';

const ASKS = 1000;
const WARM_UP = 100;

const HOOK = `import { createInterface } from 'node:readline';
createInterface({ input: process.stdin }).on('line', (line) => {
  const { id, method } = JSON.parse(line);
  if (id === undefined) return;
  const result = method === 'hook.hello' ? { ok: true } : { action: 'continue' };
  process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id, result }) + '\\n');
});
`;

async function beforeToolMs(): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'tern-bench-hooks-'));
  const script = join(dir, 'hook.mjs');
  writeFileSync(script, HOOK);
  const hook = new ProcessHook(
    { name: 'bench', priority: 0, command: [process.execPath, script], env: {}, intercept: ['before_tool'] },
    { log: () => {} },
  );
  const set = new HookSet(
    () => ({ observer_timeout_ms: 500, interceptor_timeout_ms: 5000, approval_timeout_ms: 60_000 }),
    () => {},
  );
  set.add(hook);
  const turn = new AbortController().signal;
  const input: HookInput = {
    point: 'before_tool',
    meta: { agent: 'main', session: 's', turn: 't', channel: 'cli', chat: 'direct:bench' },
    call: { id: 'c1', name: 'exec', arguments: { command: 'echo hi' } },
  };
  try {
    hook.start();
    await hook.started(AbortSignal.timeout(10_000));
    for (let i = 0; i < WARM_UP; i++) await set.ask(hook, input, turn);
    const samples: number[] = [];
    for (let i = 0; i < ASKS; i++) {
      const started = performance.now();
      await set.ask(hook, input, turn);
      samples.push(performance.now() - started);
    }
    return percentile(
      samples.sort((a, b) => a - b),
      50,
    );
  } finally {
    await set.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function bench(): Promise<BenchRow[]> {
  return [{ name: 'hooks.before_tool_overhead_ms', value: round(await beforeToolMs(), 3), unit: 'ms' }];
}
