// A sandbox's own pipes (bubblewrap's seccomp program, its block pipe's byte) carry bytes to the child. A child that
// dies with such bytes unread (killed at a timeout or by a cancelled turn before bubblewrap read them) resets the
// pipe, and the next read on it fails with ECONNRESET: an `error` event no one heard ended the whole process (the
// test loop lost a test file to it, in `cron/host-effects`).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Writable } from 'node:stream';
import { runCommand } from '../../adapters/tools/exec/run-command.js';
import { tempHome } from '../support/temp-home.js';

test('a child that ends with our bytes unread on its pipe: the command still ends with its outcome', async () => {
  const home = tempHome();
  try {
    const outcome = await runCommand(
      {
        argv: ['sh', '-c', 'echo done'],
        cwd: home.home,
        env: { PATH: process.env.PATH },
        contained: false,
        marker: 'TERN_TEST_PIPE_RESET=1',
        pipes: 1,
        // Written, never read by `sh`: its end closes with the bytes in it.
        setUp: async (child) => void (child.stdio[3] as Writable).write(Buffer.alloc(4096, 1)),
      },
      10_000,
      1_000,
      new AbortController().signal,
    );
    assert.equal(outcome, { kind: 'exited', code: 0, output: 'done\n', truncated: false });
  } finally {
    home.remove();
  }
});

test.run();
