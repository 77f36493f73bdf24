// #38 item 2 and 4: `tern log compact` archives what is older than `log.retention.max_age_days` and gives the space
// back; `tern log forget --sender ID` removes a person's messages and turns for good and says so in the log.
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { rerunTurn } from '../../actors/replay.js';
import { Runtime } from '../../actors/runtime.js';
import { validateDraft, type Envelope } from '../../bus/index.js';
import { loadConfig } from '../../store/config/index.js';
import { EventLog } from '../../store/log/event-log.js';
import { ensureWorkspace } from '../../store/workspace.js';
import { runCliAsync } from '../support/cli.js';
import { startInstantModel } from '../support/instant-model.js';
import { tempHome, type TempHome } from '../support/temp-home.js';
import { message, writeConfig } from '../support/turn-fixture.js';

/** Turns in the long log: five times the 100 a compaction keeps (`COMPACT_TURNS=2000` for the size). */
const TURNS = Number(process.env.COMPACT_TURNS ?? 500);
/** An archived turn, read back from the archive and imported again. */
const ARCHIVED = Math.floor(TURNS / 2);
/** 100 turns a day: the last 100 are younger than one day. */
const SPACING_MS = 864_000;

/** Real turns of a runtime answered by the instant model: the templates the long log is made of. */
async function recordTurns(home: TempHome, _url: string, count: number, sender = 'tester'): Promise<Envelope[][]> {
  const loaded = loadConfig({ env: home.env });
  const runtime = Runtime.start({ loaded, env: home.env, command: 'test', logError: () => {} });
  const turns: Envelope[][] = [];
  try {
    for (let i = 0; i < count; i++) {
      const reply = await runtime.ask({ ...message(`question ${i}`, sender), sender });
      if (reply.kind !== 'turn') throw new Error(JSON.stringify(reply));
      await runtime.log.flushed();
      turns.push(runtime.log.read({ turn: reply.turn }));
    }
  } finally {
    await runtime.close();
  }
  return turns;
}

function configure(home: TempHome, url: string, retention: Record<string, number> = { max_age_days: 1 }): void {
  writeConfig(home.home, url);
  ensureWorkspace(home.workspace);
  const path = join(home.home, 'config.json');
  const config = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  writeFileSync(path, JSON.stringify({ ...config, log: { retention } }));
}

/** `count` copies of `templates` under new turn ids, the last one now, `spacingMs` apart; returns the ids. */
async function copyTurns(log: EventLog, templates: Envelope[][], count: number, spacingMs: number): Promise<string[]> {
  const now = Date.now();
  const ids: string[] = [];
  for (let k = 0; k < count; k++) {
    const turn = `t_copy${String(k).padStart(6, '0')}`;
    ids.push(turn);
    const at = now - (count - 1 - k) * spacingMs - 1;
    for (const e of templates[k % templates.length]!) {
      const { seq: _seq, at: _at, ...draft } = e;
      log.append(validateDraft({ ...draft, turn, at } as never));
    }
    if (k % 100 === 99) await log.flushed();
  }
  return ids;
}

/** The instant model answers from what it is asked alone: one serves every test of the file. */
let model: { url: string; close(): void };
test.before(async () => {
  model = await startInstantModel();
});
test.after(() => model.close());

test('500 turns, the last 100 kept: the file shrinks, recent turns rerun identical, usage is unchanged', async () => {
  const home = tempHome();
  try {
    configure(home, model.url);
    const templates = await recordTurns(home, model.url, 5);
    // The long history: copies of the real turns under new turn ids, 100 a day, the last one now.
    const log = EventLog.open(home.sessions);
    const ids = await copyTurns(log, templates, TURNS, SPACING_MS);
    await log.closeAfterFlush();
    // On an hour: a rollup sums an hour's answers.
    const since = new Date(Math.floor((Date.now() - 3 * 86_400_000) / 3_600_000) * 3_600_000).toISOString();
    const usageBy = async (): Promise<string[]> => {
      const views = [
        ['--by', 'day'],
        ['--by', 'hour'],
        ['--by', 'session'],
        ['--by', 'model'],
        ['--since', since],
      ];
      return Promise.all(views.map(async (view) => (await runCliAsync(['usage', '--json', ...view], home.env)).stdout));
    };
    const usage = await runCliAsync(['usage', '--json'], home.env);
    const usageViews = await usageBy();
    // Two answers a turn (a tool call, then the reply).
    assert.equal(JSON.parse(usage.stdout).total.calls, 2 * (TURNS + 5));
    const sizeBefore = statSync(join(home.sessions, 'data.mdb')).size;

    const compacted = await runCliAsync(['log', 'compact', '--json'], home.env);
    assert.equal(compacted.code, 0, compacted.stderr);
    const result = JSON.parse(compacted.stdout) as { kept: number; archived: number; archive: string };
    assert.ok(result.archived > 0 && result.kept > 0, compacted.stdout);

    const sizeAfter = statSync(join(home.sessions, 'data.mdb')).size;
    assert.ok(sizeAfter < sizeBefore / 2, `data.mdb ${sizeBefore} → ${sizeAfter} bytes`);
    assert.equal((await runCliAsync(['usage', '--json'], home.env)).stdout, usage.stdout);
    assert.equal(await usageBy(), usageViews);

    const after = EventLog.open(home.sessions, { readOnly: true });
    try {
      const started = after.read({ type: 'turn.started' }).map((e) => e.turn);
      assert.equal(started, [...templates.map((t) => t[0]!.turn), ...ids.slice(TURNS - 100)]);
      for (const turn of ids.slice(TURNS - 100)) {
        const outcome = await rerunTurn(after.read({ turn }));
        assert.equal(outcome.identical, true, `${turn}: ${JSON.stringify(outcome)}`);
      }
      const { archived, kept, archive } = result;
      assert.equal(
        after.read({ type: 'log.compacted' }).map((e) => e.data),
        [{ archived, kept, archive }],
      );
      // The usage of archived answers is one rollup: the answers themselves went with their turns.
      assert.equal(after.read({ type: 'provider.responded' }).length, 2 * (100 + 5));
      const rollups = after.read({ type: 'usage.rolled_up' }) as Array<Envelope<'usage.rolled_up'>>;
      assert.equal(rollups.length, 1);
      const rolledCalls = rollups[0]!.data.buckets.reduce((sum, bucket) => sum + bucket.calls, 0);
      assert.equal(rolledCalls, 2 * (TURNS - 100));
    } finally {
      after.close();
    }
    const verified = await runCliAsync(['log', 'verify'], home.env);
    assert.equal(verified.code, 0, verified.stdout + verified.stderr);
    const replay = await runCliAsync(['replay', ids.at(-1)!, '--rerun'], home.env);
    assert.equal(replay.stdout, 'identical\n', replay.stderr);

    // An archived turn, read back with --archive: its events as written.
    const shown = await runCliAsync(['log', '--archive', '--turn', ids[ARCHIVED]!, '--json'], home.env);
    const events = shown.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Envelope);
    const template = templates[ARCHIVED % templates.length]!;
    assert.equal(
      events.map((e) => e.type),
      template.map((e) => e.type),
    );
    const prompt = (list: Envelope[]) => list.find((e) => e.type === 'prompt.built')?.data;
    assert.equal(prompt(events), prompt(template));
    assert.equal(
      events.every((e) => e.turn === ids[ARCHIVED]),
      true,
    );

    // `tern log import` puts the archive back at its seqs: the archived turn reruns identical; twice adds nothing.
    const file = join(home.sessions, result.archive);
    const imported = await runCliAsync(['log', 'import', file, '--json'], home.env);
    assert.equal(JSON.parse(imported.stdout), { ok: true, imported: result.archived, skipped: 0 }, imported.stderr);
    const again = await runCliAsync(['log', 'import', file, '--json'], home.env);
    assert.equal(JSON.parse(again.stdout), { ok: true, imported: 0, skipped: result.archived }, again.stderr);
    const whole = EventLog.open(home.sessions, { readOnly: true });
    try {
      const back = whole.read({ turn: ids[ARCHIVED]! });
      assert.equal(
        back.map((e) => e.type),
        templates[ARCHIVED % templates.length]!.map((e) => e.type),
      );
      assert.equal((await rerunTurn(back)).identical, true);
      assert.equal(
        whole.read({ type: 'log.imported' }).map((e) => e.data),
        [
          { file: result.archive.slice('archive/'.length), imported: result.archived, skipped: 0 },
          { file: result.archive.slice('archive/'.length), imported: 0, skipped: result.archived },
        ],
      );
    } finally {
      whole.close();
    }
    assert.equal((await runCliAsync(['usage', '--json'], home.env)).stdout, usage.stdout);
    const broken = await runCliAsync(['log', 'import', join(home.home, 'config.json')], home.env);
    assert.equal([broken.code, broken.stderr.includes('cannot import that file')], [1, true], broken.stderr);
  } finally {
    home.remove();
  }
});

test('max_size_mb archives the oldest turns first and keeps the latest checkpoint of each session', async () => {
  const home = tempHome();
  try {
    configure(home, model.url, { max_age_days: 90, max_size_mb: 1 });
    const templates = await recordTurns(home, model.url, 5);
    const log = EventLog.open(home.sessions);
    const keys = { agent: 'main', session: 'sk_v1_quiet', at: Date.now() - 60_000 };
    const said = { role: 'user' as const, content: 'the flat viewing is on Tuesday' };
    log.append(validateDraft({ ...keys, type: 'session.compacted', data: { summary: 'flat', messages: [said] } }));
    const ids = await copyTurns(log, templates, 1000, 1000);
    await log.closeAfterFlush();
    const compacted = await runCliAsync(['log', 'compact', '--json'], home.env);
    assert.equal(compacted.code, 0, compacted.stderr);
    const after = EventLog.open(home.sessions, { readOnly: true });
    try {
      const started = after.read({ type: 'turn.started' }).map((e) => e.turn!);
      const copies = started.filter((turn) => turn.startsWith('t_copy'));
      assert.ok(copies.length > 50 && copies.length < 900, `${copies.length} turns kept`);
      assert.equal(copies, ids.slice(ids.length - copies.length));
      assert.equal(after.read({ session: 'sk_v1_quiet' }).length, 1);
      const { total } = after.storedBytes();
      assert.ok(total < 1.25 * 2 ** 20, `${total} bytes kept`);
    } finally {
      after.close();
    }
  } finally {
    home.remove();
  }
});

test('tern log forget --sender removes their messages and turns, keeps others, records data.forgotten', async () => {
  const home = tempHome();
  try {
    configure(home, model.url);
    const theirs = await recordTurns(home, model.url, 2, 'alice');
    const others = await recordTurns(home, model.url, 2, 'bob');
    const forgot = await runCliAsync(['log', 'forget', '--sender', 'alice', '--json'], home.env);
    assert.equal(forgot.code, 0, forgot.stderr);
    const log = EventLog.open(home.sessions, { readOnly: true });
    try {
      const all = log.read({});
      const text = JSON.stringify(all.filter((e) => e.type !== 'data.forgotten'));
      assert.equal(text.includes('alice'), false);
      for (const turn of theirs) assert.equal(log.read({ turn: turn[0]!.turn }), []);
      for (const turn of others) assert.equal(log.read({ turn: turn[0]!.turn }).length, turn.length);
      const [forgotten] = log.read({ type: 'data.forgotten' }) as Array<Envelope<'data.forgotten'>>;
      assert.equal(forgotten!.data.sender, 'alice');
      assert.equal(
        forgotten!.data.turns,
        theirs.map((t) => t[0]!.turn!),
      );
      assert.equal(forgotten!.data.removed, JSON.parse(forgot.stdout).removed);
    } finally {
      log.close();
    }
  } finally {
    home.remove();
  }
});

test.run();
