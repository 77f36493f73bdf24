// A reader that opens the log while its writer is still creating the file (`tern log --follow` or the dashboard as a
// gateway starts): lmdb-js 3.5's read-only open of such a file failed and its error path crashed the process
// (SIGSEGV; `log/follow` ended its test process so). The reader must get `log_missing` and wait for the writer.
import { spawnSync } from 'node:child_process';
import { cpSync, rmSync, truncateSync } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { repoRoot, runCli, startCli } from '../support/cli.js';
import { tempHome, type TempHome } from '../support/temp-home.js';

const node = (args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', ...args], { cwd: repoRoot });

/** A finished log of one event, written by another process as a gateway leaves it (its lock file too). */
let written: TempHome;
test.before(() => {
  written = tempHome();
  const made = node(['tests/support/log-writer-child.ts', written.sessions, '1', '0']);
  assert.is(made.status, 0, made.stderr.toString());
});
test.after(() => written.remove());

/** A copy of the finished log in `dir`, its data file cut to `size` bytes (`whole`: as written). */
function copyCut(dir: string, size: number | 'whole'): string {
  cpSync(written.sessions, dir, { recursive: true });
  if (typeof size === 'number') truncateSync(join(dir, 'data.mdb'), size);
  return dir;
}

test('a log file shorter than its meta pages is one being created: log_missing, no crash', () => {
  const home = tempHome();
  try {
    const sizes = [0, 4096, 'whole'] as const;
    const dirs = sizes.map((size) => copyCut(join(home.home, `log-${size}`), size));
    const read = node(['tests/log/fixtures/open-reader.ts', ...dirs]);
    const outcomes = read.stdout.toString().trim().split('\n');
    assert.equal(
      [read.signal ?? read.status, sizes.map((size, i) => `${size}: ${outcomes[i]}`)],
      [0, ['0: log_missing', '4096: log_missing', 'whole: opened']],
      read.stderr.toString(),
    );
  } finally {
    home.remove();
  }
});

test('tern log on a log a crash left half-made: no events at once; --follow says what it waits for', async () => {
  const home = tempHome();
  try {
    rmSync(home.sessions, { recursive: true, force: true });
    copyCut(home.sessions, 4096);
    const read = runCli(['log'], home.env);
    assert.equal([read.code, read.stdout, read.stderr], [0, '', '']);
    const following = startCli(['log', '--follow'], home.env);
    let stderr = '';
    following.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (stderr.includes('\n')) following.kill('SIGINT');
    });
    // Before, it waited without a word: ended here so the case fails rather than hangs.
    const deadline = setTimeout(() => following.kill('SIGKILL'), 20_000);
    const [code] = await once(following, 'close');
    clearTimeout(deadline);
    assert.equal(
      [code, stderr],
      [0, `tern: no event log in ${home.sessions} yet; waiting for a gateway to write one\n`],
    );
  } finally {
    home.remove();
  }
});

test.run();
