// A reader that opens the log while its writer is still creating the file (`tern log --follow` or the dashboard as a
// gateway starts): lmdb-js 3.5's read-only open of such a file failed and its error path crashed the process
// (SIGSEGV; `log/follow` ended its test process so). The reader must get `log_missing` and wait for the writer.
import { spawnSync } from 'node:child_process';
import { cpSync, truncateSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { repoRoot } from '../support/cli.js';
import { tempHome } from '../support/temp-home.js';

const node = (args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', ...args], { cwd: repoRoot });

test('a log file shorter than its meta pages is one being created: log_missing, no crash', () => {
  const home = tempHome();
  try {
    const made = node(['tests/support/log-writer-child.ts', home.sessions, '1', '0']);
    assert.is(made.status, 0, made.stderr.toString());
    const outcomes = [0, 4096, 'whole'].map((size) => {
      // A copy of the finished log (its lock file too, as a writer leaves it) with the data file cut to `size`.
      const dir = join(home.home, `log-${size}`);
      cpSync(home.sessions, dir, { recursive: true });
      if (typeof size === 'number') truncateSync(join(dir, 'data.mdb'), size);
      const read = node(['tests/log/fixtures/open-reader.ts', dir]);
      return `${size}: ${read.signal ?? read.status} ${read.stdout.toString().trim()}`;
    });
    assert.equal(outcomes, ['0: 0 log_missing', '4096: 0 log_missing', 'whole: 0 opened']);
  } finally {
    home.remove();
  }
});

test.run();
