import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { initialTransition, transition } from 'xstate';
import { stateName } from '../../actors/machine-state.js';
import { HEARTBEAT_STATES, heartbeatMachine, type HeartbeatEvent } from '../../machines/heartbeat.js';

const on: HeartbeatEvent = { type: 'SCHEDULE', enabled: true };
const off: HeartbeatEvent = { type: 'SCHEDULE', enabled: false };

/** The state after feeding these events from the start. */
function after(events: HeartbeatEvent[]): string {
  let [snapshot] = initialTransition(heartbeatMachine);
  for (const event of events) [snapshot] = transition(heartbeatMachine, snapshot, event);
  return stateName(snapshot.value);
}

const reach: Record<string, HeartbeatEvent[]> = {
  stopped: [],
  waiting: [on],
  running: [on, { type: 'TICK' }],
  disabled: [off],
};

const cases: Array<[from: string, event: HeartbeatEvent, to: string]> = [
  ['stopped', on, 'waiting'],
  ['stopped', off, 'disabled'],
  ['stopped', { type: 'TICK' }, 'stopped'],
  ['stopped', { type: 'FINISHED' }, 'stopped'],
  ['waiting', { type: 'TICK' }, 'running'],
  ['waiting', on, 'waiting'],
  ['waiting', off, 'disabled'],
  ['waiting', { type: 'STOP' }, 'stopped'],
  ['running', { type: 'FINISHED' }, 'waiting'],
  ['running', { type: 'STOP' }, 'stopped'],
  ['running', off, 'running'],
  ['running', { type: 'TICK' }, 'running'],
  ['disabled', on, 'waiting'],
  ['disabled', off, 'disabled'],
  ['disabled', { type: 'TICK' }, 'disabled'],
  ['disabled', { type: 'STOP' }, 'stopped'],
];

for (const [from, event, to] of cases) {
  const label = event.type === 'SCHEDULE' ? `SCHEDULE(enabled: ${event.enabled})` : event.type;
  test(`heartbeat: ${from} + ${label} → ${to}`, () => {
    assert.is(after(reach[from]!), from);
    assert.is(after([...reach[from]!, event]), to);
  });
}

test('heartbeat starts stopped and lists its states in drawing order', () => {
  assert.is(after([]), 'stopped');
  assert.equal([...HEARTBEAT_STATES], ['stopped', 'waiting', 'running', 'disabled']);
  assert.equal(Object.keys(heartbeatMachine.config.states ?? {}).sort(), [...HEARTBEAT_STATES].sort());
});

test('a heartbeat switched off during a run finishes it, then waits until rescheduled as disabled', () => {
  assert.is(after([on, { type: 'TICK' }, off, { type: 'FINISHED' }]), 'waiting');
  assert.is(after([on, { type: 'TICK' }, off, { type: 'FINISHED' }, off]), 'disabled');
});

test.run();
