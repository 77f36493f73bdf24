import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SendJournal } from '../../store/log/send-journal.js';
import { repoRoot } from '../support/cli.js';
import { tempHome as tempHomeOnly } from '../support/temp-home.js';

/** A home whose log dir exists, as the event log leaves it before the journal is opened beside it. */
function tempHome(): ReturnType<typeof tempHomeOnly> {
  const home = tempHomeOnly();
  mkdirSync(home.sessions, { recursive: true });
  return home;
}

const lines = (dir: string): string[] => readFileSync(join(dir, 'sending.journal'), 'utf8').split('\n').filter(Boolean);

test('a log dir without a journal has no marks from before (unknown, not empty)', () => {
  const home = tempHome();
  const journal = SendJournal.open(home.sessions);
  assert.is(journal.before, undefined);
  journal.close();
  assert.equal(SendJournal.open(home.sessions).before, new Set());
  home.remove();
});

test('a mark made the moment before a process is killed with SIGKILL is there for the next start', async () => {
  const home = tempHome();
  const script = `import { SendJournal } from './store/log/send-journal.ts';
const journal = SendJournal.open(${JSON.stringify(home.sessions)});
journal.restart([]);
journal.mark('tg:m1:t1:0');
journal.mark('tg:m2:t2:0');
journal.settle('tg:m1:t1:0');
process.kill(process.pid, 'SIGKILL');`;
  const signal = await new Promise<string | null>((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: repoRoot,
      stdio: 'inherit',
    });
    child.on('exit', (_code, signal) => resolve(signal));
  });
  assert.is(signal, 'SIGKILL');
  assert.equal([...(SendJournal.open(home.sessions).before ?? [])], ['tg:m1:t1:0', 'tg:m2:t2:0']);
  home.remove();
});

test(
  'a restart keeps only the parts still in doubt; ' + 'a long journal is rewritten with the parts not settled yet',
  () => {
    const home = tempHome();
    const first = SendJournal.open(home.sessions);
    first.restart([]);
    first.mark('a:0');
    first.mark('b:0');
    first.close();
    const second = SendJournal.open(home.sessions);
    assert.equal([...(second.before ?? [])], ['a:0', 'b:0']);
    second.restart(['b:0']);
    assert.equal(lines(home.sessions), ['b:0']);
    for (let i = 0; i < 12_000; i++) {
      second.mark(`tg:message-${i}:turn-${i}:0`);
      if (i !== 4321) second.settle(`tg:message-${i}:turn-${i}:0`);
    }
    const kept = lines(home.sessions);
    assert.ok(statSync(join(home.sessions, 'sending.journal')).size < 256 * 1024);
    assert.equal(kept.slice(0, 2), ['b:0', 'tg:message-4321:turn-4321:0']);
    assert.ok(kept.length < 12_000 - 8000, `${kept.length} lines kept`);
    second.close();
    home.remove();
  },
);

test.run();
