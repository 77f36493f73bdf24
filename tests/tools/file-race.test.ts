// Check-then-open races (issue #34, item 6): a racer process swaps a workspace folder and a link to an outside folder
// (renameat2 RENAME_EXCHANGE, in a tight loop) while the file tools work in that folder. Whatever the timing, nothing
// outside is read or written.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { toolsFixture, type ToolsFixture } from '../support/tools-fixture.js';

const CALLS = 300;
const CANARY = 'OUTSIDE-CANARY';

const RACER = `
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
os.chdir(sys.argv[1])
print('ready', flush=True)
while True:
    libc.renameat2(-100, b'dir', -100, b'link', 2)
`;

/** `dir` (a real folder) and `link` (to the outside folder) in the workspace, and a racer exchanging the two. */
async function race(f: ToolsFixture): Promise<{ outside: string; racer: ChildProcess }> {
  const outside = join(f.root, 'outside');
  mkdirSync(outside);
  writeFileSync(join(outside, 'canary.txt'), `${CANARY}\n`);
  mkdirSync(join(f.workspace, 'dir'));
  writeFileSync(join(f.workspace, 'dir', 'canary.txt'), 'inside\n');
  symlinkSync(outside, join(f.workspace, 'link'));
  const racer = spawn('python3', ['-c', RACER, f.workspace], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [line] = (await once(createInterface({ input: racer.stdout! }), 'line')) as [string];
  assert.is(line, 'ready');
  return { outside, racer };
}

async function stop(racer: ChildProcess): Promise<void> {
  racer.kill('SIGKILL');
  if (racer.exitCode === null && racer.signalCode === null) await once(racer, 'exit');
}

test(`read_file and search_files under a racer: 0 outside reads in ${CALLS} calls each`, async () => {
  const f = toolsFixture();
  const { racer } = await race(f);
  const seen = { inside: 0, refused: 0, leaked: 0 };
  const count = (content: string) => {
    if (content.includes(CANARY)) seen.leaked += 1;
    else if (content.includes('inside')) seen.inside += 1;
    else seen.refused += 1;
  };
  try {
    for (let i = 0; i < CALLS; i++) {
      count((await f.call('read_file', { path: 'dir/canary.txt' })).content);
      count((await f.call('search_files', { pattern: 'CANARY|inside', path: 'dir' })).content);
    }
  } finally {
    await stop(racer);
  }
  assert.is(seen.leaked, 0, `outside content read: ${JSON.stringify(seen)}`);
  assert.ok(seen.inside > 0, `no call got through at all: ${JSON.stringify(seen)}`);
  f.close();
});

test(`write_file, append_file and edit_file under a racer: 0 outside writes in ${CALLS} calls each`, async () => {
  const f = toolsFixture();
  const { outside, racer } = await race(f);
  let written = 0;
  try {
    for (let i = 0; i < CALLS; i++) {
      if ((await f.call('write_file', { path: `dir/new-${i}.txt`, content: 'x' })).ok) written += 1;
      await f.call('append_file', { path: 'dir/canary.txt', content: 'appended\n' });
      await f.call('edit_file', { path: 'dir/canary.txt', old_text: CANARY, new_text: 'EDITED' });
    }
  } finally {
    await stop(racer);
  }
  assert.equal(readdirSync(outside), ['canary.txt']);
  assert.is(readFileSync(join(outside, 'canary.txt'), 'utf8'), `${CANARY}\n`);
  assert.ok(written > 0, 'no write got through at all');
  f.close();
});

test.run();
