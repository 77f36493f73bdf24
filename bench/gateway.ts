// `tern gateway` as users run it: bundled as `npm run build` bundles it (adapters/cli/bundle.mjs, without
// touching dist/) and started through its shebang. Rows: cold start to /ready with 3 Telegram channels, RSS
// after 60 s idle, and inbound-to-reply latency through the telegram-test-api emulator with a model that
// answers at once. The idle gateway starts first and sits out its minute while the other rows run; it is the
// build's first start, reported on its own (`gateway.ready_first_start_ms`: on Node 22.1 and later the later
// starts run on the compile cache it wrote).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startGatewayModel, type GatewayModel } from '../tests/support/gateway-model.js';
import { modelEntry } from '../tests/support/gateway-process.js';
import { tempHome } from '../tests/support/temp-home.js';
import { freePort, TelegramEmulator } from '../tests/support/telegram-emulator.js';
import { bundleCli, rssMb, untilReady } from './gateway-run.js';
import { percentile, round, type BenchRow } from './row.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const outdir = join(root, '.tern-bench', 'gateway');
const bundle = join(outdir, 'main.js');
const TOKENS = ['100001:bench-a-token', '100002:bench-b-token', '100003:bench-c-token'];
/** The idle gateway has bots of its own, so it never takes the updates the reply rows send. */
const IDLE_TOKENS = ['100011:idle-a-token', '100012:idle-b-token', '100013:idle-c-token'];
const START_RUNS = 9;
const REPLIES = 200;
const IDLE_MS = 60_000;
/**
 * The `_no_extra_ca` rows start the same programs without `NODE_EXTRA_CA_CERTS`, whose certificates Node parses at
 * start.
 */
const withoutExtraCa = (env: NodeJS.ProcessEnv): NodeJS.ProcessEnv => {
  const rest = { ...env };
  delete rest.NODE_EXTRA_CA_CERTS;
  return rest;
};
type EnvOf = (env: NodeJS.ProcessEnv) => NodeJS.ProcessEnv;
const asGiven: EnvOf = (env) => env;

interface Running {
  child: ChildProcess;
  url: string;
  readyMs: number;
  remove(): void;
}

async function startGateway(
  model: GatewayModel,
  emulator: TelegramEmulator,
  tokens: string[],
  envOf: EnvOf = asGiven,
): Promise<Running> {
  const home = tempHome();
  const port = await freePort();
  const channels = Object.fromEntries(
    tokens.map((token, i) => [
      `tg_${i}`,
      // Open on purpose: a closed channel answers a stranger's first message with a pairing code and then nothing.
      {
        enabled: true,
        type: 'telegram',
        settings: { token, base_url: emulator.url, poll_timeout_seconds: 1, allow_from: ['*'] },
      },
    ]),
  );
  mkdirSync(home.home, { recursive: true });
  writeFileSync(
    join(home.home, 'config.json'),
    JSON.stringify({
      version: 2,
      gateway: { port },
      agents: { defaults: { model: 'fast' } },
      model_list: [modelEntry(model.url)],
      heartbeat: { enabled: false },
      channel_list: channels,
    }),
  );
  const url = `http://127.0.0.1:${port}`;
  const started = performance.now();
  // Executed as the `tern` bin is, so the V8 flags of its shebang apply.
  const child = spawn(bundle, ['gateway'], { env: envOf(home.env), stdio: 'ignore' });
  const readyMs = await untilReady(port, started, 'the gateway');
  return { child, url, readyMs, remove: home.remove };
}

async function stop(running: Running): Promise<void> {
  const exited = new Promise((resolve) => running.child.once('exit', resolve));
  running.child.kill('SIGINT');
  await exited;
  running.remove();
}

/** The floor the issue races toward, measured on the same machine in the same run: bare express 5 answering. */
async function expressFloorMs(envOf: EnvOf): Promise<number> {
  const port = await freePort();
  const script =
    `import express from 'express'; express().get('/ready', (_q, r) ` +
    `=> r.json({ ok: true })).listen(${port}, '127.0.0.1');`;
  const started = performance.now();
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    cwd: root,
    stdio: 'ignore',
    env: envOf(process.env),
  });
  const elapsed = await untilReady(port, started, 'express');
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill();
  await exited;
  return elapsed;
}

/**
 * A gateway loads its turn engine after /ready, and a message that comes first waits for it: one such message is
 * answered before the timed ones, with the wait a start needs on a busy machine (there it alone outlasted 10 s).
 */
async function firstReply(emulator: TelegramEmulator): Promise<void> {
  await emulator.say(TOKENS[0]!, 'first', { userId: 4999 });
  await emulator.waitForBotMessages(TOKENS[0]!, 4999, 1, 60_000);
}

async function replyTimes(emulator: TelegramEmulator): Promise<number[]> {
  await firstReply(emulator);
  const times: number[] = [];
  for (let i = 0; i < REPLIES; i++) {
    const chatId = 5000 + (i % 10);
    const before = emulator.botMessages(TOKENS[0]!, chatId).length;
    const sent = performance.now();
    await emulator.say(TOKENS[0]!, `ping ${i}`, { userId: chatId });
    await emulator.waitForBotMessages(TOKENS[0]!, chatId, before + 1, 10_000);
    times.push(performance.now() - sent);
  }
  return times.sort((a, b) => a - b);
}

/**
 * Gateway and express starts taken in turns, so a burst of load on a shared machine falls on both alike rather than
 * on one block of starts.
 */
async function startTimes(
  model: GatewayModel,
  emulator: TelegramEmulator,
  envOf: EnvOf,
): Promise<{ starts: number[]; floors: number[] }> {
  const starts: number[] = [];
  const floors: number[] = [];
  for (let i = 0; i < START_RUNS; i++) {
    const running = await startGateway(model, emulator, TOKENS, envOf);
    starts.push(running.readyMs);
    await stop(running);
    floors.push(await expressFloorMs(envOf));
  }
  return { starts: starts.sort((a, b) => a - b), floors: floors.sort((a, b) => a - b) };
}

export async function bench(): Promise<BenchRow[]> {
  bundleCli(outdir);
  const model = await startGatewayModel();
  const emulator = await TelegramEmulator.start();
  const idle = await startGateway(model, emulator, IDLE_TOKENS);
  const idleSince = performance.now();
  try {
    const { starts, floors } = await startTimes(model, emulator, asGiven);
    const { starts: startsNoCa, floors: floorsNoCa } = await startTimes(model, emulator, withoutExtraCa);
    const running = await startGateway(model, emulator, TOKENS);
    const replies = await replyTimes(emulator).finally(() => stop(running));
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, IDLE_MS - (performance.now() - idleSince))));
    const idleRss = rssMb(idle.child.pid!);
    return [
      { name: 'gateway.ready_ms', value: round(percentile(starts, 50), 1), unit: 'ms' },
      { name: 'gateway.ready_first_start_ms', value: round(idle.readyMs, 1), unit: 'ms' },
      { name: 'gateway.express_floor_ms', value: round(percentile(floors, 50), 1), unit: 'ms' },
      { name: 'gateway.ready_no_extra_ca_ms', value: round(percentile(startsNoCa, 50), 1), unit: 'ms' },
      { name: 'gateway.express_floor_no_extra_ca_ms', value: round(percentile(floorsNoCa, 50), 1), unit: 'ms' },
      { name: 'gateway.idle_rss_mb', value: round(idleRss, 1), unit: 'MB' },
      { name: 'gateway.reply_p50_ms', value: round(percentile(replies, 50), 1), unit: 'ms' },
      { name: 'gateway.reply_p99_ms', value: round(percentile(replies, 99), 1), unit: 'ms' },
    ];
  } finally {
    await stop(idle);
    await emulator.stop();
    await model.close();
  }
}
