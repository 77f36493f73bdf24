import { spawn } from 'node:child_process';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { validateDraft } from '../../bus/index.js';
import { EventLog } from '../../store/log/event-log.js';
import { repoRoot } from '../support/cli.js';
import { chunk } from '../support/events.js';
import { tempHome, type TempHome } from '../support/temp-home.js';

const test = suite<{ home: TempHome }>('readers opening while others close');

test.before.each((ctx) => {
  ctx.home = tempHome();
});
test.after.each((ctx) => {
  ctx.home.remove();
});

function churn(dir: string, count: number): Promise<string> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'tests/log/fixtures/open-close-churn.ts', dir, String(count)],
    { cwd: repoRoot, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let out = '';
  child.stdout.on('data', (data: Buffer) => (out += data.toString()));
  return new Promise((resolve) => child.on('exit', () => resolve(out.trim())));
}

// The last process to close an environment destroys lmdb's mutexes in lock.mdb; one opening at that moment skipped
// setting them up again and failed every read with "Invalid argument" (`store/lmdb.ts`).
test('three processes opening, reading and closing the log 800 times each never fail', async (ctx) => {
  const log = EventLog.open(ctx.home.sessions);
  for (let i = 0; i < 50; i++) log.append(validateDraft(chunk('s1', 't1', `x ${i}`)));
  await log.closeAfterFlush();
  const results = await Promise.all([1, 2, 3].map(() => churn(ctx.home.sessions, 800)));
  assert.equal(results, Array(3).fill(JSON.stringify({ failed: 0, first: '' })));
});

test.run();
