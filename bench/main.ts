// `npm run bench` prints a table; `npm run bench -- --json` prints {"rows":[{"name","value","unit"}]}.
// `npm run bench -- --only log` runs only the suites whose name starts with `log`.
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
