import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { EventLog } from '../../store/log/event-log.js';
import { LogError } from '../../store/log/errors.js';
import { repoRoot } from '../support/cli.js';
import { tempHome, type TempHome } from '../support/temp-home.js';

const test = suite<{ home: TempHome; children: ChildProcess[] }>('the event log writer lock');

test.before.each((ctx) => {
  ctx.home = tempHome();
  mkdirSync(ctx.home.sessions, { recursive: true });
  ctx.children = [];
});
test.after.each(async (ctx) => {
  for (const child of ctx.children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  ctx.home.remove();
});

function openError(dir: string): unknown {
  try {
    EventLog.open(dir).close();
    return undefined;
  } catch (error) {
    return error;
  }
}

/** A second process writing the log until killed; resolves once it has committed. */
async function liveWriter(ctx: { home: TempHome; children: ChildProcess[] }): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'tests/support/log-writer-child.ts', ctx.home.sessions, '0', '50'],
    { cwd: repoRoot, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  ctx.children.push(child);
  await once(child.stdout!, 'data');
  return child;
}

test('a writer.pid naming a live process that is not a writer (a reused PID) does not hold the log', (ctx) => {
  const stranger = spawn('sleep', ['30']);
  ctx.children.push(stranger);
  writeFileSync(join(ctx.home.sessions, 'writer.pid'), String(stranger.pid));
  assert.is(openError(ctx.home.sessions), undefined);
});

test('a writer.pid naming this very process (a restart that got the same PID) does not hold the log', (ctx) => {
  writeFileSync(join(ctx.home.sessions, 'writer.pid'), String(process.pid));
  assert.is(openError(ctx.home.sessions), undefined);
});

test(
  'a second live writer is refused with a clear error naming it; ' + 'once it is killed (-9) the log opens at once',
  async (ctx) => {
    const writer = await liveWriter(ctx);
    const error = openError(ctx.home.sessions);
    assert.instance(error, LogError);
    assert.equal(
      [(error as LogError).code, (error as LogError).message],
      ['log_locked', `the event log in ${ctx.home.sessions} is being written by process ${writer.pid}`],
    );
    writer.kill('SIGKILL');
    await once(writer, 'exit');
    assert.is(openError(ctx.home.sessions), undefined);
  },
);

test('closing the log releases the lock for the next writer in the same process', (ctx) => {
  EventLog.open(ctx.home.sessions).close();
  const log = EventLog.open(ctx.home.sessions);
  assert.instance(openError(ctx.home.sessions), LogError);
  log.close();
  assert.is(openError(ctx.home.sessions), undefined);
});
test.run();
