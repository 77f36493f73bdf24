// `npm run bench` prints a table; `npm run bench -- --json` prints {"rows":[{"name","value","unit"}]}.
// `npm run bench -- --only log` runs only the suites whose name starts with `log`.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BenchRow, BenchSuite } from './row.js';

const suites: Record<string, () => Promise<{ bench: BenchSuite }>> = {
  log: () => import('./log.js'),
  'log-size': () => import('./log-size.js'),
  cli: () => import('./cli.js'),
  tools: () => import('./tools.js'),
  config: () => import('./config.js'),
  providers: () => import('./providers.js'),
  turn: () => import('./turn.js'),
  prompt: () => import('./prompt.js'),
  subagent: () => import('./subagent.js'),
  soak: () => import('./soak.js'),
  mcp: () => import('./mcp.js'),
  hooks: () => import('./hooks.js'),
  gateway: () => import('./gateway.js'),
  channels: () => import('./channels.js'),
  launcher: () => import('./launcher.js'),
  skills: () => import('./skills.js'),
  cluster: () => import('./cluster.js'),
  chaos: () => import('./chaos.js'),
  memory: () => import('./memory.js'),
};

const args = process.argv.slice(2);
const json = args.includes('--json');
const onlyAt = args.indexOf('--only');
const only = onlyAt >= 0 ? args[onlyAt + 1] : undefined;

/** The suites that start `tern gateway` members through tests/support/cli.ts, which reads `TERN_TEST_BIN` once. */
const MEMBER_SUITES = ['cluster', 'chaos'];
// Members run as users run them, from a bundle, as the gateway, channels and soak suites run theirs (each bundles its
// own); a `TERN_TEST_BIN` already set (a build, after `npm run build`) is kept.
if (!process.env.TERN_TEST_BIN && MEMBER_SUITES.some((name) => !only || name.startsWith(only))) {
  const { bundleCli } = await import('./gateway-run.js');
  process.env.TERN_TEST_BIN = dirname(
    bundleCli(join(fileURLToPath(new URL('..', import.meta.url)), '.tern-bench', 'members')),
  );
}

const rows: BenchRow[] = [];
for (const [name, load] of Object.entries(suites)) {
  if (only && !name.startsWith(only)) continue;
  if (!json) process.stderr.write(`bench: ${name}…\n`);
  rows.push(...(await (await load()).bench()));
}

if (json) {
  process.stdout.write(`${JSON.stringify({ rows })}\n`);
} else {
  const width = Math.max(...rows.map((r) => r.name.length), 4) + 2;
  process.stdout.write(`${'name'.padEnd(width)}${'value'.padStart(14)}  unit\n`);
  for (const r of rows) process.stdout.write(`${r.name.padEnd(width)}${String(r.value).padStart(14)}  ${r.unit}\n`);
}
