// What handing a task to a subagent costs before its model is asked anything: from the parent's `spawn` call
// (`tool.requested`) to the child's first `provider.requested`, with a model in a child process that answers at
// once. Each parent turn spawns one task; the next starts once that task has ended.
import { sessionKeyOf } from '../actors/agent.js';
import { Runtime } from '../actors/runtime.js';
import { loadConfig } from '../store/config/index.js';
import { ensureWorkspace } from '../store/workspace.js';
import { writeConfig } from '../tests/support/turn-fixture.js';
import { tempHome } from '../tests/support/temp-home.js';
import { percentile, round, type BenchRow } from './row.js';
import { instantModel } from './model-process.js';

const WARMUP = 50;
const SPAWNS = 300;

export async function bench(): Promise<BenchRow[]> {
  const home = tempHome();
  const model = await instantModel(['--spawn']);
  writeConfig(home.home, model.url);
  ensureWorkspace(home.workspace);
  const runtime = Runtime.start({
    loaded: loadConfig({ env: home.env }),
    env: home.env,
    command: 'bench',
    logError: () => {},
  });
  const agent = runtime.agent();
  let spawnedAt = 0;
  let overhead: ((ms: number) => void) | undefined;
  runtime.bus.on('tool.requested').subscribe((e) => {
    if (e.data.name === 'spawn') spawnedAt = performance.now();
  });
  runtime.bus.on('provider.requested').subscribe((e) => {
    if (e.task !== undefined && e.data.iteration === 1) overhead?.(performance.now() - spawnedAt);
  });
  const ended = (): Promise<void> =>
    new Promise((resolve) => {
      const subscription = runtime.bus.on('subagent.ended').subscribe(() => {
        subscription.unsubscribe();
        resolve();
      });
    });
  const once = async (i: number): Promise<number> => {
    const measured = new Promise<number>((resolve) => (overhead = resolve));
    const done = ended();
    await runtime.ask({
      agent: agent.id,
      session_key: sessionKeyOf({ agent: agent.id, channel: 'cli', dimensions: [['chat', `direct:s${i % 10}`]] }),
      channel: 'cli',
      account: 'default',
      chat: `direct:s${i % 10}`,
      sender: 'bench',
      message_id: `m${i}`,
      text: `task ${i}`,
      remote: false,
      media: [],
    });
    const ms = await measured;
    await done;
    return ms;
  };
  try {
    for (let i = 0; i < WARMUP; i++) await once(i);
    const samples: number[] = [];
    for (let i = 0; i < SPAWNS; i++) samples.push(await once(WARMUP + i));
    samples.sort((a, b) => a - b);
    return [
      { name: 'subagent.spawn_overhead_ms', value: round(percentile(samples, 50)), unit: 'ms' },
      { name: 'subagent.spawn_overhead_p99_ms', value: round(percentile(samples, 99)), unit: 'ms' },
    ];
  } finally {
    await runtime.close();
    model.child.stdin!.end();
    home.remove();
  }
}
