import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { initialTransition, transition } from 'xstate';
import { CRON_STATES, cronMachine, type CronEvent } from '../../machines/cron.js';

function walk(enabled: boolean, events: CronEvent[]): string[] {
  let [snapshot] = initialTransition(cronMachine, { enabled });
  const seen = [String(snapshot.value)];
  for (const event of events) {
    [snapshot] = transition(cronMachine, snapshot, event);
    seen.push(String(snapshot.value));
  }
  return seen;
}

test('a job moves scheduled → running → scheduled | disabled | done', () => {
  const cases: Array<[boolean, CronEvent[], string[]]> = [
    [true, [{ type: 'FIRE' }, { type: 'FINISHED', after: 'reschedule' }], ['scheduled', 'running', 'scheduled']],
    [true, [{ type: 'FIRE' }, { type: 'FINISHED', after: 'remove' }], ['scheduled', 'running', 'done']],
    [true, [{ type: 'FIRE' }, { type: 'FINISHED', after: 'disable' }], ['scheduled', 'running', 'disabled']],
    [false, [{ type: 'FIRE' }, { type: 'ENABLE' }, { type: 'FIRE' }], ['disabled', 'disabled', 'scheduled', 'running']],
    [true, [{ type: 'DISABLE' }, { type: 'REMOVE' }], ['scheduled', 'disabled', 'done']],
    [true, [{ type: 'FIRE' }, { type: 'DISABLE' }, { type: 'REMOVE' }], ['scheduled', 'running', 'running', 'running']],
    [true, [{ type: 'REMOVE' }, { type: 'ENABLE' }], ['scheduled', 'done', 'done']],
  ];
  for (const [enabled, events, states] of cases) assert.equal(walk(enabled, events), states, events.map((e) => e.type).join(' '));
});

test('the exported state list is every state a person can see', () => {
  assert.equal([...CRON_STATES], ['scheduled', 'running', 'disabled', 'done']);
});

test.run();
