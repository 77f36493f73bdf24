// #38: a running gateway compacts its own log on its schedule: it records `log.compacted`, answers meanwhile, and
// every turn from before and after the swap is read back and reruns `identical` from a fresh process.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Envelope } from '../../bus/index.js';
import { join } from 'node:path';
import { readText, startClockedGateway } from '../support/clocked-gateway.js';
import { runCliAsync } from '../support/cli.js';
import { eventually } from '../support/eventually.js';

const HOUR = 3_600_000;
const turnsOf = (events: Envelope[], type: string): string[] =>
  events.filter((e) => e.type === type).map((e) => e.turn ?? '');

test('the gateway compacts its log every compact_every_hours and loses no turn', async () => {
  const g = await startClockedGateway({ log: { retention: { compact_every_hours: 2 } } });
  try {
    const done = (): number => g.events.filter((e) => e.type === 'turn.completed').length;
    for (let i = 1; i <= 3; i++) {
      g.say(`before ${i}`);
      assert.is(await eventually(done, i, 20_000), i);
    }
    assert.equal(g.clock.pending().includes(2 * HOUR), true, 'the compaction is scheduled');
    g.clock.advance(2 * HOUR);
    // A message while the copy runs: it is answered and kept.
    g.say('during');
    const recorded = (): Envelope[] => g.gateway.core.log.read({ type: 'log.compacted' });
    assert.is(await eventually(() => recorded().length, 1, 20_000), 1, readText(join(g.home.home, 'logs/gateway.log')));
    assert.is(await eventually(done, 4, 20_000), 4);
    g.say('after');
    assert.is(await eventually(done, 5, 20_000), 5);
    assert.equal(g.sent.length, 5);
    const compacted = recorded()[0] as Envelope & { data: Record<string, number> };
    assert.ok(compacted.data.bytes_before! > 0 && compacted.data.bytes_after! > 0, JSON.stringify(compacted.data));
    const turns = turnsOf(g.events, 'turn.completed');
    // A fresh process reads the file the gateway now writes (lmdb-js caches environments by path).
    const shown = await runCliAsync(['log', '--json', '--after', '0'], g.home.env);
    assert.is(shown.code, 0, shown.stderr);
    const onDisk = shown.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Envelope);
    assert.equal(turnsOf(onDisk, 'turn.completed'), turns);
    assert.equal(onDisk.filter((e) => e.type === 'log.compacted').length, 1);
    for (const turn of turns) {
      const replay = await runCliAsync(['replay', turn, '--rerun'], g.home.env);
      assert.equal({ turn, code: replay.code, stdout: replay.stdout }, { turn, code: 0, stdout: 'identical\n' });
    }
  } finally {
    await g.close();
  }
});

test.run();
