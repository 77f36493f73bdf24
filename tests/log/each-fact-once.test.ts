// #38 item 1: a turn's events name what they repeat (type, session, machine states, the turn's settings) by number
// or blob, and the indexes add seqs to their lists instead of a key per batch, so a short tool turn costs under
// 3,000 bytes of log (6,700 before); every event reads back as the bus published it, from the log and from a salvage.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { rerunTurn } from '../../actors/replay.js';
import { Runtime } from '../../actors/runtime.js';
import type { Envelope } from '../../bus/index.js';
import { loadConfig } from '../../store/config/index.js';
import { EventLog } from '../../store/log/event-log.js';
import { salvageLog } from '../../store/log/salvage.js';
import { ensureWorkspace } from '../../store/workspace.js';
import { runCliAsync } from '../support/cli.js';
import { startInstantModel } from '../support/instant-model.js';
import { tempHome } from '../support/temp-home.js';
import { message, writeConfig } from '../support/turn-fixture.js';

const WARM = 5;
const TURNS = 20;

test('a short tool turn costs under 3,000 bytes of log and reads back as published', async () => {
  const model = await startInstantModel();
  const home = tempHome();
  try {
    writeConfig(home.home, model.url);
    ensureWorkspace(home.workspace);
    const runtime = Runtime.start({ loaded: loadConfig({ env: home.env }), env: home.env, command: 'test' });
    const log = runtime.log as EventLog;
    const published: Envelope[] = [];
    runtime.bus.events$.subscribe((e) => published.push(e));
    const ask = (i: number) => runtime.ask(message(`hello number ${i}, how are you?`, 's1'));
    let perTurn: number;
    try {
      for (let i = 0; i < WARM; i++) await ask(i);
      await log.flushed();
      const before = log.storedBytes().total;
      for (let i = WARM; i < WARM + TURNS; i++) await ask(i);
      await log.flushed();
      perTurn = (log.storedBytes().total - before) / TURNS;
    } finally {
      await runtime.close();
    }
    assert.ok(perTurn < 3000, `${perTurn} bytes per turn`);

    const reader = EventLog.open(home.sessions, { readOnly: true });
    let turns: string[];
    try {
      const bySeq = new Map(reader.read().map((e) => [e.seq, JSON.stringify(e)]));
      for (const event of published) assert.is(bySeq.get(event.seq), JSON.stringify(event));
      const types = new Set(published.map((e) => e.type));
      for (const type of ['turn.started', 'actor.transitioned', 'actor.stopped', 'message.routed', 'prompt.built']) {
        assert.ok(types.has(type as Envelope['type']), type);
      }
      turns = reader.read({ type: 'turn.started' }).map((e) => e.turn!);
      assert.is(turns.length, WARM + TURNS);
      const session = published.find((e) => e.session)!.session!;
      assert.equal(
        reader.read({ session }).map((e) => e.seq),
        published.filter((e) => e.session === session).map((e) => e.seq),
      );
      const result = await rerunTurn(reader.read({ turn: turns.at(-1)! }));
      assert.is(result.identical, true, JSON.stringify(result));
    } finally {
      reader.close();
    }
    const replay = await runCliAsync(['replay', turns[2]!, '--rerun'], home.env);
    assert.equal([replay.stdout, replay.code], ['identical\n', 0], replay.stderr);

    const salvaged = salvageLog(home.sessions);
    assert.is(salvaged.lost, 0);
    const again = EventLog.open(home.sessions, { readOnly: true });
    try {
      const bySeq = new Map(again.read().map((e) => [e.seq, JSON.stringify(e)]));
      for (const event of published) assert.is(bySeq.get(event.seq), JSON.stringify(event));
      assert.equal(
        again.read({ type: 'actor.stopped' }).map((e) => e.seq),
        published.filter((e) => e.type === 'actor.stopped').map((e) => e.seq),
      );
    } finally {
      again.close();
    }
  } finally {
    model.close();
    home.remove();
  }
});

test.run();
