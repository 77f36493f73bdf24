import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DANGEROUS_PATTERN_MESSAGE, OUTSIDE_WORKING_DIR_MESSAGE } from '../../adapters/tools/exec/exec-guard.js';
import { toolsFixture } from '../support/tools-fixture.js';

const guard = suite('exec guard with the sandbox as the boundary');

guard('isolation on: rm -rf build, rm -rf node_modules and find … -delete inside the workspace run', async () => {
  const f = toolsFixture(() => ({ exec: { isolation: 'bwrap' } }));
  for (const dir of ['build/obj', 'node_modules/x', 'src']) mkdirSync(join(f.workspace, dir), { recursive: true });
  writeFileSync(join(f.workspace, 'src', 'a.o'), 'o');
  writeFileSync(join(f.workspace, 'src', 'a.c'), 'c');
  for (const command of [
    'rm -rf build',
    'rm -rf node_modules',
    "find . -name '*.o' -delete",
    'cd src && rm -rf ../build',
  ]) {
    assert.equal(await f.call('exec', { command }), { ok: true, content: '(no output)' }, command);
  }
  assert.equal(readdirSync(f.workspace).sort(), ['src']);
  assert.equal(readdirSync(join(f.workspace, 'src')), ['a.c']);
  f.close();
});

guard(
  'isolation on: bulk deletions outside the workspace, or of names only known at run time, stay refused',
  async () => {
    const f = toolsFixture((policy) => ({
      exec: { isolation: 'bwrap' },
      sandbox: { ...policy, restrictToWorkspace: false },
    }));
    const refused = [
      'rm -rf /',
      'rm -rf ..',
      'cd .. && rm -rf x',
      `rm -rf ${f.root}`,
      'rm -rf ~/x',
      'rm -rf "$(pwd)"',
      'ls | xargs rm -rf',
      'find . -exec rm -rf {} \\;',
      'find / -delete',
      'find .. -name x -delete',
      'cd - && rm -rf x',
      'mkfs.ext4 disk.img',
    ];
    for (const command of refused)
      assert.equal(await f.call('exec', { command }), { ok: false, content: DANGEROUS_PATTERN_MESSAGE }, command);
    f.close();
  },
);

guard('isolation off: the deny list refuses bulk deletion in the workspace too', async () => {
  const f = toolsFixture(() => ({ exec: { isolation: 'off' } }));
  for (const command of ['rm -rf build', 'find . -name "*.o" -delete']) {
    assert.equal(await f.call('exec', { command }), { ok: false, content: DANGEROUS_PATTERN_MESSAGE }, command);
  }
  f.close();
});

guard(
  'interpreter code is not a path: perl -e and python3 -c one-liners run; ' +
    'a path outside in their arguments is still one',
  async () => {
    const f = toolsFixture(() => ({ exec: { isolation: 'bwrap' } }));
    // `$half/2` read as a path holds a variable the guard cannot know, and was refused as one.
    assert.equal(await f.call('exec', { command: `perl -e 'my $half = 3/2; print "$half/2\n"'` }), {
      ok: true,
      content: '1.5/2\n',
    });
    assert.equal(await f.call('exec', { command: 'python3 -c "print(3/2)"' }), { ok: true, content: '1.5\n' });
    assert.equal(
      await f.call('exec', {
        command: "node -e \"process.stdout.write(String('a/b'.split('/').length))\" 2> /dev/null",
      }),
      { ok: true, content: '2' },
    );
    assert.equal(await f.call('exec', { command: 'python3 -c "import sys; print(sys.argv)" /etc/passwd' }), {
      ok: false,
      content: OUTSIDE_WORKING_DIR_MESSAGE,
    });
    f.close();
  },
);
guard.run();
