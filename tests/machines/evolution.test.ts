// Evolution's machine on a hand-moved clock: given its guards, when the clock moves, then its states and effects.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createActor, fromPromise } from 'xstate';
import { clockOf } from '../../actors/scheduler.js';
import { evolutionMachine, evolutionState } from '../../machines/evolution.js';
import { ManualClock } from '../support/gateway-clock.js';

function given(scheduledAt: number[]) {
  const clock = new ManualClock();
  const effects: string[] = [];
  let finish = (): void => undefined;
  const machine = evolutionMachine.provide({
    actors: { coldPath: fromPromise(() => new Promise<void>((resolve) => (finish = resolve))) },
    actions: { takeInbox: () => void effects.push(`inbox at ${clock.now()}`) },
    guards: { scheduledMinute: () => scheduledAt.includes(clock.now()) },
    delays: { minute: () => 60_000 - (clock.now() % 60_000), inbox: 2000 },
  });
  const actor = createActor(machine, { clock: clockOf(clock) }).start();
  const state = () => evolutionState(actor.getSnapshot().value);
  return { clock, actor, effects, state, finish: () => finish() };
}

test('when a scheduled minute comes, then the cold path runs; a RUN meanwhile runs it once more', async () => {
  const evolution = given([120_000]);
  evolution.clock.advance(60_000);
  assert.is(evolution.state(), 'idle');
  evolution.clock.advance(60_000);
  assert.is(evolution.state(), 'running');
  evolution.actor.send({ type: 'RUN', trigger: 'after_turn' });
  evolution.finish();
  await new Promise((resolve) => setImmediate(resolve));
  assert.is(evolution.state(), 'running');
  evolution.finish();
  await new Promise((resolve) => setImmediate(resolve));
  assert.is(evolution.state(), 'idle');
});

test('the inbox is read every 2 s; after STOP nothing is read and no timer waits', () => {
  const evolution = given([]);
  evolution.clock.advance(2000);
  evolution.clock.advance(2000);
  assert.equal(evolution.effects, ['inbox at 2000', 'inbox at 4000']);
  assert.equal(evolution.clock.pending().sort(), [2000, 56_000]);
  evolution.actor.send({ type: 'STOP' });
  assert.equal(
    [evolution.state(), evolution.actor.getSnapshot().status, evolution.clock.pending()],
    ['stopped', 'done', []],
  );
});

test.run();
