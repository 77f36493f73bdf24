import { spawn } from 'node:child_process';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { EventLog } from '../../store/log/event-log.js';
import { repoRoot } from '../support/cli.js';
import { tempHome } from '../support/temp-home.js';

/** Starts a writer that appends without pause and kills it with SIGKILL once it has acknowledged `atLeast`. */
function killMidAppend(dir: string, atLeast: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'tests/support/log-writer-child.ts', dir, '0', '0'], {
      cwd: repoRoot,
    });
    let acknowledged = 0;
    let text = '';
    child.stdout.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      const lines = text.split('\n');
      text = lines.pop() ?? '';
      for (const line of lines) acknowledged = Math.max(acknowledged, Number(line));
      if (acknowledged >= atLeast) child.kill('SIGKILL');
    });
    child.on('exit', (_code, signal) =>
      signal === 'SIGKILL' ? resolve(acknowledged) : reject(new Error(`writer ended with ${signal}`)),
    );
  });
}

test('after kill -9 mid-append the log opens with every acknowledged event, no holes, indexes whole', async () => {
  const home = tempHome();
  const acknowledged = await killMidAppend(home.sessions, 3000);
  const log = EventLog.open(home.sessions);
  const events = log.read();
  const last = log.lastCommittedSeq();
  assert.ok(last >= acknowledged, `last ${last} < acknowledged ${acknowledged}`);
  assert.equal(
    events.map((e) => e.seq),
    Array.from({ length: last }, (_, i) => i + 1),
  );
  events.forEach((e) => assert.equal(e.type === 'provider.chunk' && e.data, { kind: 'text', delta: `event ${e.seq}` }));
  for (const session of ['s0', 's1', 's2']) {
    assert.equal(
      log.read({ session }).map((e) => e.seq),
      events.filter((e) => e.session === session).map((e) => e.seq),
    );
  }
  assert.equal(
    log.read({ turn: 't7' }).map((e) => e.seq),
    [61, 62, 63, 64, 65, 66, 67, 68, 69, 70],
  );
  assert.is(
    log.append({ type: 'provider.chunk', session: 's0', data: { kind: 'text', delta: 'after' } }).seq,
    last + 1,
  );
  await log.flushed();
  log.close();
  home.remove();
});

test.run();
