import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { initialTransition, transition } from 'xstate';
import { stateName } from '../../actors/machine-state.js';
import { GATEWAY_STATES, gatewayMachine, type GatewayEvent } from '../../machines/gateway.js';

function after(events: Array<GatewayEvent['type']>): { state: string; done: boolean } {
  let [snapshot] = initialTransition(gatewayMachine);
  for (const type of events) [snapshot] = transition(gatewayMachine, snapshot, { type });
  return { state: stateName(snapshot.value), done: snapshot.status === 'done' };
}

const reach: Record<string, Array<GatewayEvent['type']>> = {
  starting: [],
  running: ['STARTED'],
  draining: ['STARTED', 'STOP'],
  stopped: ['STARTED', 'STOP', 'DRAINED'],
};

const cases: Array<[from: string, event: GatewayEvent['type'], to: string]> = [
  ['starting', 'STARTED', 'running'],
  ['starting', 'START_FAILED', 'stopped'],
  ['starting', 'DRAINED', 'starting'],
  ['running', 'STOP', 'draining'],
  ['running', 'STARTED', 'running'],
  ['running', 'DRAINED', 'running'],
  ['draining', 'DRAINED', 'stopped'],
  ['draining', 'STOP', 'draining'],
  ['stopped', 'STARTED', 'stopped'],
  ['stopped', 'STOP', 'stopped'],
];

for (const [from, event, to] of cases) {
  test(`gateway: ${from} + ${event} → ${to}`, () => {
    assert.is(after(reach[from]!).state, from);
    assert.is(after([...reach[from]!, event]).state, to);
  });
}

test('gateway starts in starting, ends in the final state stopped, and lists its states in drawing order', () => {
  assert.equal(after([]), { state: 'starting', done: false });
  assert.equal(after(['STARTED', 'STOP', 'DRAINED']), { state: 'stopped', done: true });
  assert.equal(after(['START_FAILED']), { state: 'stopped', done: true });
  assert.equal([...GATEWAY_STATES], ['starting', 'running', 'draining', 'stopped']);
  assert.equal(Object.keys(gatewayMachine.config.states ?? {}), [...GATEWAY_STATES]);
});

test.run();
