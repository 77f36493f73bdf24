// #38: a gateway killed with SIGKILL during its own scheduled compaction (mid-copy, and as the new files take the old
// ones' place) loses nothing it had committed: started again, its log (with the archive) holds every event seen before
// the kill by seq and type, it answers, and no `.compact-*` copy is left behind.
import { cpSync, existsSync, readdirSync, rmSync, statSync, watch } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { validateDraft, type Envelope } from '../../bus/index.js';
import { readArchive } from '../../store/log/compact.js';
import { EventLog } from '../../store/log/event-log.js';
import { runCliAsync } from '../support/cli.js';
import { chunk } from '../support/events.js';
import { until } from '../support/eventually.js';
import { startGatewayModel, type GatewayModel } from '../support/gateway-model.js';
import { modelEntry, startGatewayProcess, type GatewayProcess } from '../support/gateway-process.js';
import { freePort, TelegramEmulator } from '../support/telegram-emulator.js';
import { tempHome, type TempHome } from '../support/temp-home.js';

const TOKEN = '777777:compaction-kill-token';
const DAY_MS = 86_400_000;
/**
 * Seeded events: enough that the copy of the young ones takes many turns of the gateway's event loop (it copies 500 a
 * turn), so a kill lands mid-copy; the old ones only go to the archive.
 */
const OLD = 3_000;
const YOUNG = 10_000;
/** The copy's size at which the mid-copy kill is sent: under a third of the ~840 KB the young events take. */
const UNDER_WAY_BYTES = 2 ** 18;
const TALK_EVERY_MS = 100;

interface Context {
  model?: GatewayModel;
  emulator?: TelegramEmulator;
  gateway?: GatewayProcess;
  home?: TempHome;
}

const test = suite<Context>('tern gateway killed with SIGKILL during its scheduled log compaction');

test.after.each(async (context) => {
  await context.gateway?.stop();
  await context.emulator?.stop();
  await context.model?.close();
  context.home?.remove();
});

/**
 * A log written long before: half of it older than the retention keeps, so the compaction archives it. Written once for
 * the file; each case's gateway works on a copy of it.
 */
let seeded: TempHome;
test.before(async () => {
  seeded = tempHome();
  const log = EventLog.open(seeded.sessions);
  const old = Date.now() - 100 * DAY_MS;
  for (let i = 0; i < OLD; i++) log.append(validateDraft({ ...chunk('s_old', `t_old${i % 50}`, `old ${i}`), at: old }));
  for (let i = 0; i < YOUNG; i++) log.append(validateDraft(chunk('s_young', `t_young${i % 50}`, `young ${i}`)));
  await log.flushed();
  log.close();
});
test.after(() => seeded.remove());

function seed(home: TempHome): void {
  rmSync(home.sessions, { recursive: true, force: true });
  cpSync(seeded.sessions, home.sessions, { recursive: true });
}

async function config(context: Context, compactEveryHours: number): Promise<Record<string, unknown>> {
  return {
    gateway: { host: '127.0.0.1', port: await freePort() },
    agents: { defaults: { model: 'fast' } },
    model_list: [modelEntry(context.model!.url)],
    heartbeat: { enabled: false },
    log: { retention: { max_age_days: 90, compact_every_hours: compactEveryHours } },
    channel_list: {
      telegram: {
        enabled: true,
        settings: { token: TOKEN, base_url: context.emulator!.url, poll_timeout_seconds: 1, allow_from: ['*'] },
      },
    },
  };
}

/** Adds seq → type of the events after `after` in the log in `dir` to `seen`, from beside the gateway; the last seq. */
function readInto(seen: Map<number, string>, dir: string, after = 0): number {
  const log = EventLog.open(dir, { readOnly: true });
  let last = after;
  try {
    for (const event of log.iterate({ after })) last = seen.set(event.seq, event.type) && event.seq;
  } finally {
    log.close();
  }
  return last;
}

const compactFolders = (dir: string): string[] => readdirSync(dir).filter((name) => name.startsWith('.compact-'));

/** Resolves when the gateway's copy of the log holds more than `bytes` (the copy is under way). */
function copyUnderWay(dir: string, bytes: number): Promise<void> {
  return until(
    'the copy under way',
    () => {
      const [folder] = compactFolders(dir);
      const file = folder && join(dir, folder, 'data.mdb');
      return file && existsSync(file) && statSync(file).size > bytes ? true : undefined;
    },
    60_000,
  ).then(() => undefined);
}

/** Resolves when a copy's data file is renamed over the log's: the swap, as closely as another process sees it. */
function swapSeen(dir: string): Promise<void> {
  return new Promise((resolve) => {
    const watcher = watch(dir, (kind, name) => {
      if (kind === 'rename' && name === 'data.mdb') {
        watcher.close();
        resolve();
      }
    });
  });
}

async function killDuringCompaction(
  context: Context,
  at: (dir: string) => Promise<void>,
  swapped: boolean,
): Promise<void> {
  context.model = await startGatewayModel();
  context.emulator = await TelegramEmulator.start(undefined, { offsets: true });
  const home = tempHome();
  context.home = home;
  seed(home);
  const dir = home.sessions;
  const reached = at(dir);
  // The first compaction starts about 2 s after the gateway does.
  const first = await startGatewayProcess(await config(context, 0.0005), {}, home);
  context.gateway = first;
  // Messages go on arriving while the log is copied and swapped; what the test reads meanwhile was committed.
  let talking = true;
  const seen = new Map<number, string>();
  const talk = (async () => {
    for (let i = 0, last = 0; talking; i++) {
      await context.emulator!.say(TOKEN, `during ${i}`, { userId: 5000 + (i % 5) });
      last = readInto(seen, dir, last);
      // The emulator takes a message without I/O: without a timer here the loop never let this process poll, and the
      // killed gateway's exit was never seen (the test hung after the kill). Ten a second: turns go on all through the
      // copy, and the gateway is not kept so busy that the swap waits a minute for a quiet moment.
      await new Promise((resolve) => setTimeout(resolve, TALK_EVERY_MS));
    }
  })();
  try {
    await reached;
    await first.kill();
  } finally {
    talking = false;
    await talk;
  }
  readInto(seen, dir);
  // Killed mid-copy, the log is the old one; killed at the swap, the new one, which the copy closed with its record.
  const records = [...seen.values()].filter((type) => type === 'log.compacted').length;
  assert.is(records, swapped ? 1 : 0, 'log.compacted records before the restart');
  for (const event of readArchive(dir)) seen.set(event.seq, event.type);
  assert.ok(seen.size >= OLD + YOUNG, `${seen.size} events seen`);

  const second = await startGatewayProcess(await config(context, 0), {}, home);
  context.gateway = second;
  assert.equal(compactFolders(dir), [], 'no copy of the log is left after the restart');
  await context.emulator.say(TOKEN, 'after the restart', { userId: 6000 });
  const [reply] = await context.emulator.waitForBotMessages(TOKEN, 6000, 1, 60_000);
  assert.is(reply!.text, 'echo: after the restart');
  // A fresh process reads the files the restarted gateway writes, and the archive.
  const shown = await runCliAsync(['log', '--json', '--after', '0'], home.env);
  assert.is(shown.code, 0, shown.stderr);
  const archived = await runCliAsync(['log', '--archive', '--json'], home.env);
  assert.is(archived.code, 0, archived.stderr);
  const held = new Map<number, string>();
  for (const line of `${archived.stdout}${shown.stdout}`.trim().split('\n')) {
    const event = JSON.parse(line) as Envelope;
    assert.is(held.has(event.seq), false, `seq ${event.seq} is held once`);
    held.set(event.seq, event.type);
  }
  const lost = [...seen].filter(([seq, type]) => held.get(seq) !== type);
  assert.equal(lost.slice(0, 5), [], `${lost.length} of ${seen.size} events seen before the kill are not held`);
}

test('killed mid-copy: every event committed before is there after a restart, and no copy is left', async (context) => {
  await killDuringCompaction(context, (dir) => copyUnderWay(dir, UNDER_WAY_BYTES), false);
});

test('killed as the files are swapped: every event committed before is there after a restart', async (context) => {
  await killDuringCompaction(context, swapSeen, true);
});

test.run();
