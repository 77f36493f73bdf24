// Config load + validate for a 15-channel, 12-model config with its credentials file: the first load in the
// process (cold: schemas not yet exercised) and the median of later loads (warm).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { loadConfig } from '../store/config/index.js';
import { percentile, round, type BenchRow } from './row.js';

const CHANNELS = 15;
const MODELS = 12;
const WARM_RUNS = 50;

function sample(home: string) {
  const names = Array.from({ length: MODELS }, (_, i) => `model-${i}`);
  const config = {
    version: 2,
    agents: {
      defaults: { model: names[0], max_tool_iterations: 40, loop_detection: { enabled: true } },
      list: [{ id: 'main', default: true }, { id: 'helper' }],
      dispatch: {
        rules: [{ name: 'dm', agent: 'helper', when: { chat: 'direct:1' }, session_dimensions: ['sender'] }],
      },
    },
    model_list: names.map((name, i) => ({
      model_name: name,
      provider: i % 2 ? 'openai' : 'anthropic',
      model: `native-${i}`,
      streaming: { enabled: true },
    })),
    channel_list: Object.fromEntries(
      Array.from({ length: CHANNELS }, (_, i) => [
        `channel-${i}`,
        { enabled: true, type: 'telegram', settings: { allow_from: ['1', '2'], streaming: { enabled: true } } },
      ]),
    ),
    tools: {
      mcp: { enabled: true, servers: { fs: { enabled: true, command: 'mcp-fs', args: ['/srv'] } } },
      web: { provider: 'brave' },
    },
  };
  const credentials = {
    model_list: Object.fromEntries(
      names.map((name, i) => [name, { api_keys: [`sk-bench-${i}-0000000001`, `sk-bench-${i}-0000000002`] }]),
    ),
    channel_list: Object.fromEntries(
      Array.from({ length: CHANNELS }, (_, i) => [`channel-${i}`, { token: `token-${i}-00000000001` }]),
    ),
    web: { brave: { api_keys: ['BSA-bench-000000001'] } },
  };
  writeFileSync(join(home, 'config.json'), JSON.stringify(config));
  writeFileSync(join(home, '.security.yml'), stringify(credentials), { mode: 0o600 });
}

function timed(env: NodeJS.ProcessEnv): number {
  const started = performance.now();
  const loaded = loadConfig({ env, rewrite: false });
  const elapsed = performance.now() - started;
  if (Object.keys(loaded.config.channel_list).length !== CHANNELS)
    throw new Error('bench config did not load completely');
  return elapsed;
}

export async function bench(): Promise<BenchRow[]> {
  const home = mkdtempSync(join(tmpdir(), 'tern-bench-'));
  try {
    sample(home);
    const env = { AGENT_HOME: home };
    const cold = timed(env);
    const warm = Array.from({ length: WARM_RUNS }, () => timed(env)).sort((a, b) => a - b);
    return [
      { name: 'config.load_ms', value: round(cold), unit: 'ms' },
      { name: 'config.load_warm_p50_ms', value: round(percentile(warm, 50)), unit: 'ms' },
    ];
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}
