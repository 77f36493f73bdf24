import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createActor } from 'xstate';
import { cronMachine, type CronEvent } from '../../machines/cron.js';

/** A job's actor, given whether it starts enabled; when these events come, then the states it passes through. */
function walk(enabled: boolean, events: CronEvent[]): string[] {
  const actor = createActor(cronMachine, { input: { job: 'j1', enabled } }).start();
  const seen = [String(actor.getSnapshot().value)];
  for (const event of events) {
    actor.send(event);
    seen.push(String(actor.getSnapshot().value));
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
  for (const [enabled, events, states] of cases)
    assert.equal(walk(enabled, events), states, events.map((e) => e.type).join(' '));
});

test.run();
