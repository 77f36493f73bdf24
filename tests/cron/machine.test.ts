// A job's machine on a hand-moved clock: given a job, when the clock moves or the store changes, then its states.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createActor, fromPromise } from 'xstate';
import { clockOf } from '../../actors/scheduler.js';
import { cronJobMachine, type CronEntry, type CronEvent, type CronRunOutput } from '../../machines/cron.js';
import { ManualClock } from '../support/gateway-clock.js';
import { deliverJob } from './cron-harness.js';

const entry = (due: number | undefined, enabled = true): CronEntry => ({
  job: 'j1',
  record: deliverJob('j1', { kind: 'every', seconds: 60 }),
  enabled,
  due,
});

/** Given a job (and what its runs end with, in turn), a job actor on `clock` whose due time is `context.due`. */
function given(start: CronEntry, runs: CronRunOutput[]) {
  const clock = new ManualClock();
  const machine = cronJobMachine.provide({
    actors: { run: fromPromise<CronRunOutput, CronEntry>(async () => runs.shift() ?? { after: 'remove' }) },
    guards: { isDue: ({ context }) => context.due !== undefined && context.due <= clock.now() },
    delays: { due: ({ context }) => Math.max(0, (context.due ?? 3_600_000) - clock.now()) },
  });
  const actor = createActor(machine, { input: start, clock: clockOf(clock) });
  const seen: string[] = [];
  actor.subscribe((snapshot) => {
    const state = String(snapshot.value);
    if (seen.at(-1) !== state) seen.push(state);
  });
  actor.start();
  const settle = () => new Promise((resolve) => setImmediate(resolve));
  return {
    clock,
    actor,
    seen,
    /** Moves the clock and lets a run end. */
    async advance(ms: number) {
      clock.advance(ms);
      await settle();
    },
    async send(event: CronEvent) {
      actor.send(event);
      await settle();
    },
  };
}

test(
  'given a job due in 10 s, when 9 s pass nothing runs; ' + 'at 10 s it runs, then waits for its next due time',
  async () => {
    const job = given(entry(10_000), [{ after: 'reschedule', entry: entry(70_000) }]);
    assert.equal(job.clock.pending(), [10_000]);
    await job.advance(9000);
    assert.equal(job.seen, ['scheduled']);
    await job.advance(1000);
    assert.equal(job.seen, ['scheduled', 'running', 'scheduled']);
    assert.equal([job.actor.getSnapshot().context.due, job.clock.pending()], [70_000, [60_000]]);
  },
);

test('given a job due before it was loaded (missed while down), then it runs at once, with no timer', async () => {
  const job = given(entry(-5000), [{ after: 'remove' }]);
  await job.advance(0);
  assert.equal([job.seen, job.actor.getSnapshot().status, job.clock.pending()], [['running', 'done'], 'done', []]);
});

test('when a run ends, then what follows is the run’s: scheduled again, kept disabled, or done', async () => {
  const cases: Array<[CronRunOutput, string[]]> = [
    [{ after: 'reschedule', entry: entry(60_000) }, ['scheduled', 'running', 'scheduled']],
    [{ after: 'disable', entry: entry(undefined, false) }, ['scheduled', 'running', 'disabled']],
    [{ after: 'remove' }, ['scheduled', 'running', 'done']],
    [{ after: 'reschedule' }, ['scheduled', 'running', 'done']],
  ];
  for (const [output, states] of cases) {
    const job = given(entry(1000), [output]);
    await job.advance(1000);
    assert.equal(job.seen, states, output.after);
  }
});

test('when the store switches a job off, on and removes it, then it is disabled, scheduled anew and done', async () => {
  const job = given(entry(1000), []);
  await job.send({ type: 'DISABLE', entry: entry(undefined, false) });
  assert.equal(job.clock.pending(), []);
  await job.send({ type: 'ENABLE', entry: entry(5000) });
  assert.equal(job.clock.pending(), [5000]);
  await job.send({ type: 'REMOVE' });
  assert.equal([job.seen, job.clock.pending()], [['scheduled', 'disabled', 'scheduled', 'done'], []]);
});

test('given a disabled job, when its time passes it does not run; a running job ignores the store', async () => {
  const off = given(entry(undefined, false), []);
  await off.advance(10_000);
  assert.equal([off.seen, off.clock.pending()], [['disabled'], []]);
  const held = cronJobMachine.provide({
    actors: { run: fromPromise<CronRunOutput, CronEntry>(() => new Promise(() => undefined)) },
    guards: { isDue: () => true },
  });
  const running = createActor(held, { input: entry(0), clock: clockOf(new ManualClock()) }).start();
  running.send({ type: 'DISABLE', entry: entry(undefined, false) });
  running.send({ type: 'REMOVE' });
  assert.equal(running.getSnapshot().value, 'running');
  running.stop();
});

test.run();
