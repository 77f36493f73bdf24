import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { assign, createActor, fromPromise } from 'xstate';
import { stateName } from '../../actors/machine-state.js';
import { clockOf } from '../../actors/scheduler.js';
import type { GatewayRun } from '../../adapters/cli/launcher-host/gateway-run.js';
import { gatewayHostMachine } from '../../machines/gateway-host.js';
import { ManualClock } from '../support/gateway-clock.js';

interface Pending {
  resolve(): void;
  reject(reason: string): void;
}

/**
 * The host machine on a hand-moved clock whose starts and stops end when the test says: `starts` and `stops` are the
 * effects in flight, `said` what they were handed, `states` every state the machine settled in, with its `since`.
 */
function host() {
  const clock = new ManualClock(1000);
  const starts: Pending[] = [];
  const stops: Pending[] = [];
  const said: string[] = [];
  let runs = 0;
  const machine = gatewayHostMachine.provide({
    actors: {
      start: fromPromise<GatewayRun>(
        () =>
          new Promise<GatewayRun>((resolve, reject) => {
            said.push('start');
            starts.push({
              resolve: () => resolve({ run: ++runs } as unknown as GatewayRun),
              reject: (reason) => reject(new Error(reason)),
            });
          }),
      ),
      stop: fromPromise<void, GatewayRun>(
        ({ input }) =>
          new Promise<void>((resolve, reject) => {
            said.push(`stop ${JSON.stringify(input)}`);
            stops.push({ resolve, reject: (reason) => reject(new Error(reason)) });
          }),
      ),
    },
    actions: { stamp: assign({ since: () => clock.now() }) },
  });
  const actor = createActor(machine, { clock: clockOf(clock) });
  const states: string[] = [];
  actor.subscribe((snapshot) => {
    const entry = `${stateName(snapshot.value)}@${snapshot.context.since}`;
    if (states.at(-1) !== entry) states.push(entry);
  });
  actor.start();
  const settle = () => new Promise((resolve) => setImmediate(resolve));
  return { actor, clock, starts, stops, said, states, settle };
}

test(
  'given a stopped gateway, when started, then it runs; ' + 'when the start fails, then it is stopped and says why',
  async () => {
    const { actor, clock, starts, states, settle } = host();
    actor.send({ type: 'START' });
    clock.advance(5);
    starts[0]?.reject('config.json: model_list[0].model is missing');
    await settle();
    assert.equal(actor.getSnapshot().context.failure, 'config.json: model_list[0].model is missing');
    clock.advance(5);
    actor.send({ type: 'START' });
    starts[1]?.resolve();
    await settle();
    assert.equal(
      [stateName(actor.getSnapshot().value), actor.getSnapshot().context.failure, actor.getSnapshot().context.running],
      ['running', undefined, { run: 1 }],
      'a good start clears the failure and holds the run',
    );
    assert.equal(states, ['stopped@1000', 'starting@1000', 'stopped@1005', 'starting@1010', 'running@1010']);
  },
);

test(
  'given a running gateway, when restarted, ' + 'then it is stopped with its run, rests in stopped, and starts again',
  async () => {
    const { actor, clock, starts, stops, said, states, settle } = host();
    actor.send({ type: 'START' });
    starts[0]?.resolve();
    await settle();
    actor.send({ type: 'RESTART' });
    stops[0]?.resolve();
    await settle();
    assert.equal([stateName(actor.getSnapshot().value), clock.pending()], ['restarting.stopped', [0]]);
    clock.advance(0);
    starts[1]?.resolve();
    await settle();
    assert.equal(said, ['start', 'stop {"run":1}', 'start']);
    assert.equal(states, [
      'stopped@1000',
      'starting@1000',
      'running@1000',
      'restarting.stopping@1000',
      'restarting.stopped@1000',
      'starting@1000',
      'running@1000',
    ]);
    assert.equal(actor.getSnapshot().context.running, { run: 2 });
  },
);

test(
  'when requests come while it starts, ' + 'then each is answered in turn, in order, once the start has ended',
  async () => {
    const { actor, clock, starts, stops, said, settle } = host();
    actor.send({ type: 'START' });
    actor.send({ type: 'STOP' });
    actor.send({ type: 'RESTART' });
    actor.send({ type: 'START' });
    assert.equal(actor.getSnapshot().context.queue, ['STOP', 'RESTART', 'START']);
    starts[0]?.resolve();
    await settle();
    assert.equal(stateName(actor.getSnapshot().value), 'stopping', 'the stop came first');
    stops[0]?.resolve();
    await settle();
    assert.equal(stateName(actor.getSnapshot().value), 'starting', 'a restart of a stopped gateway starts it');
    starts[1]?.resolve();
    await settle();
    clock.advance(0);
    assert.equal(
      [stateName(actor.getSnapshot().value), actor.getSnapshot().context.queue, said],
      ['running', [], ['start', 'stop {"run":1}', 'start']],
      'the last start finds it running: nothing more to do',
    );
  },
);

test(
  'when a stop fails, then the gateway is stopped all the same; ' + 'a stop of a stopped gateway does nothing',
  async () => {
    const { actor, starts, stops, said, settle } = host();
    actor.send({ type: 'STOP' });
    assert.equal([stateName(actor.getSnapshot().value), said], ['stopped', []]);
    actor.send({ type: 'START' });
    starts[0]?.resolve();
    await settle();
    actor.send({ type: 'STOP' });
    stops[0]?.reject('the log could not be flushed');
    await settle();
    assert.equal(
      [stateName(actor.getSnapshot().value), actor.getSnapshot().context.running, actor.getSnapshot().context.failure],
      ['stopped', undefined, undefined],
    );
  },
);

test.run();
