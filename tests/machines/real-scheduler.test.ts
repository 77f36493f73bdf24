// The real scheduler's timers: a period longer than a Node timer holds must not fire at once.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { realScheduler } from '../../actors/scheduler.js';

test('a delay of 600 hours does not fire before a 20 ms timer started after it', async () => {
  const fired: string[] = [];
  const long = realScheduler.after(600 * 3_600_000, () => fired.push('600 h'));
  // Node runs an overflowed timer after 1 ms: a 20 ms timer started later shows whether it did.
  await new Promise<void>((resolve) => realScheduler.after(20, resolve));
  long.cancel();
  assert.equal(fired, []);
});

test('a short delay fires, and a cancelled one does not', async () => {
  const fired: string[] = [];
  realScheduler.after(1, () => fired.push('1 ms')).cancel();
  await new Promise<void>((resolve) => realScheduler.after(5, () => resolve(void fired.push('5 ms'))));
  assert.equal(fired, ['5 ms']);
});

test.run();
