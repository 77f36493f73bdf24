import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createActor, fromPromise, waitFor } from 'xstate';
import { BoardInspector } from '../../actors/board.js';
import { gatewayBoard, gatewayMachine } from '../../machines/gateway.js';
import { given, movesOf, type Stage } from '../support/actor-kit.js';

/** The gateway machine as its actor, its start and drain provided as the test says. */
function gateway(stage: Stage, start: () => Promise<void>, drained: string[] = []) {
  const machine = gatewayMachine.provide({
    actors: {
      start: fromPromise(start),
      drain: fromPromise<void, { signal?: string }>(async ({ input }) => void drained.push(input.signal ?? 'none')),
    },
  });
  return createActor(machine, { inspect: new BoardInspector(stage.bus, { gateway: gatewayBoard }).inspect }).start();
}

test('given a start that succeeds, when stopped by a signal, then it drains with that signal and stops', async () => {
  const stage = given();
  const drained: string[] = [];
  const actor = gateway(stage, async () => undefined, drained);
  await waitFor(actor, (s) => s.value === 'running');
  actor.send({ type: 'STOP', signal: 'SIGTERM' });
  await waitFor(actor, (s) => s.status === 'done');
  assert.equal(drained, ['SIGTERM']);
  assert.equal(movesOf(stage.published, 'gateway'), ['->starting xstate.init', 'starting->running done.start', 'running->draining STOP', 'draining->stopped done.drain']);
});

test('given a start that fails, then it stops at once, keeping why, and never drains', async () => {
  const stage = given();
  const drained: string[] = [];
  const failure = Object.assign(new Error('port 18790 is in use'), { code: 'EADDRINUSE' });
  const actor = gateway(stage, async () => Promise.reject(failure), drained);
  const stopped = await waitFor(actor, (s) => s.status === 'done');
  assert.equal([stopped.value, stopped.context.failure, drained], ['stopped', failure, []]);
  assert.equal(movesOf(stage.published, 'gateway'), ['->starting xstate.init', 'starting->stopped error.start']);
});

test('a stop while starting waits for the start to end', async () => {
  const stage = given();
  let finish: () => void = () => undefined;
  const actor = gateway(stage, () => new Promise<void>((resolve) => (finish = resolve)));
  actor.send({ type: 'STOP' });
  assert.is(actor.getSnapshot().value, 'starting');
  finish();
  await waitFor(actor, (s) => s.value === 'running');
});

test.run();
