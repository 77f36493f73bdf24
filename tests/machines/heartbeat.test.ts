import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createActor, fromPromise } from 'xstate';
import { BoardInspector } from '../../actors/board.js';
import { clockOf } from '../../actors/scheduler.js';
import { heartbeatBoard, heartbeatMachine, type HeartbeatAnswer } from '../../machines/heartbeat.js';
import { given, movesOf, type Stage } from '../support/actor-kit.js';
import { ManualClock } from '../support/gateway-clock.js';

interface World {
  enabled: boolean;
  tasks: boolean;
  busy: boolean;
}

/**
 * The heartbeat machine as its actor: the world its guards read, the beats it runs, what it says,
 * on a hand-moved clock.
 */
function heartbeat(stage: Stage, world: World) {
  const clock = new ManualClock();
  const said: string[] = [];
  let finish: (() => void) | undefined;
  const machine = heartbeatMachine.provide({
    actors: {
      beat: fromPromise(() => {
        said.push('beat');
        return new Promise<{ answer: HeartbeatAnswer }>(
          (resolve) => (finish = () => resolve({ answer: { kind: 'sent' } })),
        );
      }),
    },
    actions: {
      ran: (_, { answer }) => void said.push(`ran, answer ${answer.kind}`),
      skipped: (_, { reason }) => void said.push(`skipped: ${reason}`),
    },
    guards: { enabled: () => world.enabled, hasTasks: () => world.tasks, agentBusy: () => world.busy },
    delays: { interval: () => 1000 },
  });
  const actor = createActor(machine, {
    clock: clockOf(clock),
    inspect: new BoardInspector(stage.bus, { heartbeat: heartbeatBoard }).inspect,
  }).start();
  return { actor, clock, said, finish: () => finish?.() };
}

const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

test(
  'when the interval passes, then a tick with tasks runs a beat; ' +
    'one without tasks, or while the agent is busy, is skipped in place',
  async () => {
    const stage = given();
    const world = { enabled: true, tasks: false, busy: false };
    const { actor, clock, said, finish } = heartbeat(stage, world);
    actor.send({ type: 'SCHEDULE' });
    clock.advance(1000);
    world.tasks = true;
    world.busy = true;
    clock.advance(1000);
    world.busy = false;
    clock.advance(1000);
    finish();
    await settle();
    assert.equal(said, ['skipped: no_tasks', 'skipped: busy', 'beat', 'ran, answer sent']);
    assert.equal(movesOf(stage.published, 'heartbeat'), [
      '->stopped xstate.init',
      'stopped->waiting SCHEDULE',
      'waiting->running after.interval',
      'running->waiting done.beat',
    ]);
    assert.equal(clock.pending(), [1000], 'the next tick is due one interval after the run');
  },
);

test('when scheduled while disabled, then no timer runs; scheduled again once enabled, it waits again', () => {
  const stage = given();
  const world = { enabled: false, tasks: true, busy: false };
  const { actor, clock } = heartbeat(stage, world);
  actor.send({ type: 'SCHEDULE' });
  assert.equal([actor.getSnapshot().value, clock.pending()], ['disabled', []]);
  world.enabled = true;
  actor.send({ type: 'SCHEDULE' });
  assert.equal([actor.getSnapshot().value, clock.pending()], ['waiting', [1000]]);
});

test('when stopped during a beat, then the beat is abandoned and records nothing', async () => {
  const stage = given();
  const { actor, clock, said, finish } = heartbeat(stage, { enabled: true, tasks: true, busy: false });
  actor.send({ type: 'SCHEDULE' });
  clock.advance(1000);
  actor.send({ type: 'STOP' });
  finish();
  await settle();
  assert.equal(said, ['beat']);
  assert.equal([actor.getSnapshot().value, clock.pending()], ['stopped', []]);
});

test.run();
