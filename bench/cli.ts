// `tern version` as a user runs it: the built CLI, wall time (median of 20) and peak RSS.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { percentile, round, type BenchRow } from './row.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const cli = `${root}dist/adapters/cli/main.js`;
const RUNS = 20;
// Reports the process's peak RSS on fd 3 as it exits; loaded with --require so it adds nothing to the timing runs.
const rssProbe = `${root}bench/rss-probe.cjs`;

function wallMs(): number {
  const started = performance.now();
  const result = spawnSync(process.execPath, [cli, 'version'], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`tern version failed: ${result.stderr}`);
  return performance.now() - started;
}

function peakRssMb(): number {
  const result = spawnSync(process.execPath, ['--require', rssProbe, cli, 'version'], { stdio: ['ignore', 'ignore', 'inherit', 'pipe'] });
  return Number(result.output[3]?.toString()) / 1024;
}

export async function bench(): Promise<BenchRow[]> {
  if (!existsSync(cli)) spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'ignore' });
  wallMs();
  const times = Array.from({ length: RUNS }, wallMs).sort((a, b) => a - b);
  const rss = Array.from({ length: 5 }, peakRssMb).sort((a, b) => a - b);
  return [
    { name: 'cli.version_ms', value: round(percentile(times, 50), 1), unit: 'ms' },
    { name: 'cli.version_rss_mb', value: round(percentile(rss, 50), 1), unit: 'MB' },
  ];
}
