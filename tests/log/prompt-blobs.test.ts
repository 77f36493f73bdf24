// #38 item 1: a prompt is kept by reference (system prompt, tool list and history messages as blobs written once),
// and every reader gets the event back as it was published: `tern replay --rerun` says identical, for new turns and
// for a log written before the change (tests/fixtures/log-before-38, written by the build of fa138dc).
import { cpSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { rerunTurn } from '../../actors/replay.js';
import { Runtime } from '../../actors/runtime.js';
import { validateDraft, type Envelope } from '../../bus/index.js';
import { loadConfig } from '../../store/config/index.js';
import { EventLog } from '../../store/log/event-log.js';
import { salvageLog } from '../../store/log/salvage.js';
import { ensureWorkspace } from '../../store/workspace.js';
import { runCliAsync } from '../support/cli.js';
import { startInstantModel } from '../support/instant-model.js';
import { tempHome, type TempHome } from '../support/temp-home.js';
import { message, writeConfig } from '../support/turn-fixture.js';

const { open } = createRequire(import.meta.url)('lmdb') as typeof import('lmdb');

async function runTurns(home: TempHome, url: string, texts: string[]): Promise<Envelope[]> {
  writeConfig(home.home, url);
  ensureWorkspace(home.workspace);
  const loaded = loadConfig({ env: home.env });
  const runtime = Runtime.start({ loaded, env: home.env, command: 'test', logError: () => {} });
  const published: Envelope[] = [];
  runtime.bus.events$.subscribe((e) => published.push(e));
  try {
    for (const text of texts) await runtime.ask(message(text, 's1'));
  } finally {
    await runtime.close();
  }
  return published;
}

/** The bytes lmdb holds for each event of `seqs`, read raw (no decoding) after the writer has closed. */
function storedSizes(dir: string, seqs: number[]): number[] {
  const root = open({ path: dir, readOnly: true, maxDbs: 8 });
  try {
    const events = root.openDB<Buffer, number>({ name: 'events', keyEncoding: 'uint32', encoding: 'binary' });
    return seqs.map((seq) => events.getBinary(seq)!.length);
  } finally {
    void root.close();
  }
}

/** The instant model answers from what it is asked alone: one serves every test of the file. */
let model: { url: string; close(): void };
test.before(async () => {
  model = await startInstantModel();
});
test.after(() => model.close());

test('a prompt is stored as references, written once, and read back exactly as published', async () => {
  const home = tempHome();
  try {
    const published = await runTurns(
      home,
      model.url,
      Array.from({ length: 30 }, (_, i) => `tell me about day ${i}`),
    );
    const prompts = published.filter((e) => e.type === 'prompt.built') as Array<Envelope<'prompt.built'>>;
    assert.equal(prompts.length, 30);
    const last = prompts.at(-1)!;
    assert.ok(last.data.system.length > 1000, `system prompt of ${last.data.system.length} characters`);
    assert.ok(last.data.messages.length > 20, `${last.data.messages.length} messages`);

    const log = EventLog.open(home.sessions, { readOnly: true });
    try {
      // Every prompt and checkpoint reads back as the bus published it.
      for (const type of ['prompt.built', 'session.compacted'] as const) {
        const sent = published.filter((e) => e.type === type).map((e) => JSON.stringify(e));
        assert.equal(
          log.read({ type }).map((e) => JSON.stringify(e)),
          sent,
        );
      }
      for (const prompt of prompts) assert.equal(JSON.stringify(log.get(prompt.seq)), JSON.stringify(prompt));
    } finally {
      log.close();
    }
    // What the log holds per prompt: a few keys, not the system prompt and the history again.
    const sizes = storedSizes(
      home.sessions,
      prompts.map((p) => p.seq),
    );
    assert.ok(Math.max(...sizes) < 200, `stored prompt sizes ${sizes.join(', ')}`);

    const replay = await runCliAsync(['replay', last.turn!, '--rerun'], home.env);
    assert.equal([replay.stdout, replay.code], ['identical\n', 0], replay.stderr);
  } finally {
    home.remove();
  }
});

test('a log written before #38 replays identical, and so do the turns a newer build adds to it', async () => {
  const home = tempHome();
  try {
    mkdirSync(home.sessions, { recursive: true, mode: 0o700 });
    cpSync(new URL('../fixtures/log-before-38/data.mdb', import.meta.url), join(home.sessions, 'data.mdb'));
    const published = await runTurns(home, model.url, ['one more', 'and another']);
    const newTurns = new Set(published.flatMap((e) => (e.type === 'turn.started' ? [e.turn!] : [])));
    assert.equal(newTurns.size, 2);

    const log = EventLog.open(home.sessions, { readOnly: true });
    let turns: string[];
    try {
      turns = log.read({ type: 'turn.started' }).map((e) => e.turn!);
      assert.equal(turns.length, 47);
      for (const turn of turns) {
        const events = log.read({ turn });
        const result = await rerunTurn(events);
        assert.equal(result.identical, true, `${turn}: ${JSON.stringify(result)}`);
      }
      const old = log.read({ type: 'prompt.built', limit: 1 })[0] as Envelope<'prompt.built'>;
      assert.equal(old.data.messages.at(-1)?.content.endsWith('note number 0: the flat viewing is on day 0'), true);
    } finally {
      log.close();
    }
    for (const turn of [turns[3]!, turns.at(-1)!]) {
      const replay = await runCliAsync(['replay', turn, '--rerun'], home.env);
      assert.equal([replay.stdout, replay.code], ['identical\n', 0], replay.stderr);
    }
  } finally {
    home.remove();
  }
});

test('a checkpoint stores only messages the log does not hold yet, and reads back whole', async () => {
  const home = tempHome();
  const log = EventLog.open(home.sessions);
  try {
    const keys = { agent: 'main', session: 'sk_v1_checkpoints' };
    const said = Array.from({ length: 40 }, (_, i) => ({ role: 'user' as const, content: `message number ${i}` }));
    const checkpoint = (data: Envelope<'session.compacted'>['data']) =>
      log.append(validateDraft({ ...keys, type: 'session.compacted', data }));
    const summary = 'S'.repeat(2000);
    const first = checkpoint({ summary, messages: said.slice(0, 30) });
    const second = checkpoint({ summary, messages: said });
    const empty = checkpoint({ messages: [] });
    await log.flushed();
    const before = log.storedBytes().tables.blobs!;
    const third = checkpoint({ summary, messages: said });
    await log.flushed();
    assert.equal(log.storedBytes().tables.blobs, before);
    for (const event of [first, second, empty, third]) {
      assert.equal(JSON.stringify(log.get(event.seq)), JSON.stringify(event));
    }
  } finally {
    log.close();
    home.remove();
  }
});

test('a salvage copies the blobs with the events: prompts read back whole from the salvaged log', async () => {
  const home = tempHome();
  const keys = { agent: 'main', session: 'sk_v1_salvaged', turn: 't1' };
  const data = {
    system: 'You are Tern. '.repeat(100),
    messages: [{ role: 'user' as const, content: 'hi' }],
    tools: ['exec'],
  };
  const log = EventLog.open(home.sessions);
  const prompt = log.append(validateDraft({ ...keys, type: 'prompt.built', data }));
  await log.closeAfterFlush();
  try {
    const salvaged = salvageLog(home.sessions);
    assert.equal([salvaged.saved, salvaged.lost], [1, 0]);
    const again = EventLog.open(home.sessions, { readOnly: true });
    try {
      assert.equal(JSON.stringify(again.get(prompt.seq)), JSON.stringify(prompt));
    } finally {
      again.close();
    }
  } finally {
    home.remove();
  }
});

test.run();
