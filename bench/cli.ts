// The built CLI as a user runs it: `tern version` (wall time, median of 20, and peak RSS) and a one-shot
// `tern agent -m` turn against a model that answers at once (wall time, median of 10; one tool call, so two model
// calls, with the event log written as every turn writes it), run in the CLI's own process and then handed to a
// running `tern gateway` on the same home over its control socket (the gateway runs the turn and writes the log).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureWorkspace } from '../store/workspace.js';
import { freePort } from '../tests/support/mcp-servers.js';
import { tempHome } from '../tests/support/temp-home.js';
import { writeConfig } from '../tests/support/turn-fixture.js';
import { untilReady } from './gateway-run.js';
import { instantModel } from './model-process.js';
import { percentile, round, type BenchRow } from './row.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const cli = `${root}dist/adapters/cli/main.js`;
const RUNS = 20;
const AGENT_RUNS = 10;
// Reports the process's peak RSS on fd 3 as it exits; loaded with --require so it adds nothing to the timing runs.
const rssProbe = `${root}bench/rss-probe.cjs`;

function wallMs(): number {
  const started = performance.now();
  const result = spawnSync(process.execPath, [cli, 'version'], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`tern version failed: ${result.stderr}`);
  return performance.now() - started;
}

function peakRssMb(): number {
  const result = spawnSync(process.execPath, ['--require', rssProbe, cli, 'version'], {
    stdio: ['ignore', 'ignore', 'inherit', 'pipe'],
  });
  return Number(result.output[3]?.toString()) / 1024;
}

/** One `tern agent -m` run through the bin's shebang, as typed in a terminal; the model serves from another process. */
function agentTurnMs(env: NodeJS.ProcessEnv): Promise<number> {
  const started = performance.now();
  const child = spawn(cli, ['agent', '-m', 'what is on my plan?'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve, reject) =>
    child.on('exit', (code) => {
      if (code === 0 && output === 'done\n') resolve(performance.now() - started);
      else reject(new Error(`tern agent -m failed (${code}): ${output}`));
    }),
  );
}

/**
 * Node 20 parses the certificates `NODE_EXTRA_CA_CERTS` names at every start (Node 22 and later when a TLS connection
 * first needs them; these turns make none). Where it names the system bundle that is a good share of a short run, so
 * each turn is also timed without it, in turns with the one as given: a burst of load falls on both alike.
 */
function withoutExtraCa(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const rest = { ...env };
  delete rest.NODE_EXTRA_CA_CERTS;
  return rest;
}

interface Times {
  given: number[];
  noExtraCa: number[];
}

async function timesOf(env: NodeJS.ProcessEnv): Promise<Times> {
  const bare = withoutExtraCa(env);
  await agentTurnMs(env);
  await agentTurnMs(bare);
  const times: Times = { given: [], noExtraCa: [] };
  for (let i = 0; i < AGENT_RUNS; i++) {
    times.given.push(await agentTurnMs(env));
    times.noExtraCa.push(await agentTurnMs(bare));
  }
  times.given.sort((a, b) => a - b);
  times.noExtraCa.sort((a, b) => a - b);
  return times;
}

/** Until the gateway serves its control socket (after /ready: the socket is bound once the runtime has started). */
async function untilServing(home: string): Promise<void> {
  const deadline = performance.now() + 20_000;
  while (!existsSync(join(home, 'gateway.sock'))) {
    if (performance.now() > deadline) throw new Error('the gateway served no control socket within 20 s');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** The turn in the CLI's own process, then the same turn through a gateway running on the same home. */
async function agentTurnTimes(): Promise<{ local: Times; viaGateway: Times }> {
  const home = tempHome();
  const model = await instantModel();
  let gateway: ChildProcess | undefined;
  try {
    const port = await freePort();
    writeConfig(home.home, model.url, { blocks: { gateway: { port }, heartbeat: { enabled: false } } });
    ensureWorkspace(home.workspace);
    const local = await timesOf(home.env);
    gateway = spawn(cli, ['gateway'], { env: home.env, stdio: 'ignore' });
    await untilReady(port, performance.now(), 'the gateway');
    await untilServing(home.home);
    return { local, viaGateway: await timesOf(home.env) };
  } finally {
    if (gateway && gateway.exitCode === null) {
      const exited = new Promise((resolve) => gateway!.once('exit', resolve));
      gateway.kill('SIGINT');
      await exited;
    }
    model.child.stdin!.end();
    home.remove();
  }
}

const median = (sorted: number[]): number => round(percentile(sorted, 50), 1);

export async function bench(): Promise<BenchRow[]> {
  if (!existsSync(cli)) spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'ignore' });
  wallMs();
  const times = Array.from({ length: RUNS }, wallMs).sort((a, b) => a - b);
  const rss = Array.from({ length: 5 }, peakRssMb).sort((a, b) => a - b);
  const agent = await agentTurnTimes();
  return [
    { name: 'cli.version_ms', value: round(percentile(times, 50), 1), unit: 'ms' },
    { name: 'cli.version_rss_mb', value: round(percentile(rss, 50), 1), unit: 'MB' },
    { name: 'cli.agent_turn_ms', value: median(agent.local.given), unit: 'ms' },
    { name: 'cli.agent_turn_no_extra_ca_ms', value: median(agent.local.noExtraCa), unit: 'ms' },
    { name: 'cli.agent_turn_via_gateway_ms', value: median(agent.viaGateway.given), unit: 'ms' },
    { name: 'cli.agent_turn_via_gateway_no_extra_ca_ms', value: median(agent.viaGateway.noExtraCa), unit: 'ms' },
  ];
}
