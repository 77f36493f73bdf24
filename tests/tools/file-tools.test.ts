import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { toolsFixture } from '../support/tools-fixture.js';

test('read_file in bytes mode pages by byte offset and says where to continue', async () => {
  const f = toolsFixture(() => ({ readFile: { maxReadFileSize: 4 } }));
  writeFileSync(join(f.workspace, 'n.txt'), '0123456789');
  assert.equal(await f.call('read_file', { path: 'n.txt' }), {
    ok: true,
    content: '0123\n\n[read_file: bytes 0-4 of 10; continue with offset=4]',
  });
  assert.equal(await f.call('read_file', { path: 'n.txt', offset: 8 }), {
    ok: true,
    content: '89\n\n[read_file: bytes 8-10 of 10]',
  });
  assert.equal(await f.call('read_file', { path: 'n.txt', offset: 2, length: 100 }), {
    ok: true,
    content: '2345\n\n[read_file: bytes 2-6 of 10; continue with offset=6]',
  });
  f.close();
});

test('read_file in bytes mode returns binary content as base64', async () => {
  const f = toolsFixture();
  writeFileSync(join(f.workspace, 'b.bin'), Buffer.from([0, 1, 2]));
  assert.equal(await f.call('read_file', { path: 'b.bin' }), {
    ok: true,
    content: '[binary: 3 bytes as base64]\nAAEC',
  });
  f.close();
});

test('read_file in lines mode reads from start_line, honours max_lines and the byte budget', async () => {
  const f = toolsFixture(() => ({ readFile: { mode: 'lines', maxReadFileSize: 12 } }));
  writeFileSync(join(f.workspace, 'l.txt'), 'one\ntwo\nthree\nfour\n');
  assert.equal(await f.call('read_file', { path: 'l.txt' }), {
    ok: true,
    content: 'one\ntwo\n\n[read_file: lines 1-2; continue with start_line=3]',
  });
  assert.equal(await f.call('read_file', { path: 'l.txt', start_line: 3 }), { ok: true, content: 'three\nfour' });
  assert.equal(await f.call('read_file', { path: 'l.txt', start_line: 2, max_lines: 1 }), {
    ok: true,
    content: 'two\n\n[read_file: lines 2-2; continue with start_line=3]',
  });
  f.close();
});

test('exactly one read_file is registered, with the parameters of its mode', () => {
  for (const [mode, keys] of [
    ['bytes', ['path', 'offset', 'length']],
    ['lines', ['path', 'start_line', 'max_lines']],
  ] as const) {
    const f = toolsFixture(() => ({ readFile: { mode } }));
    const specs = f.registry.specs().filter((s) => s.name === 'read_file');
    assert.is(specs.length, 1);
    assert.equal(Object.keys(specs[0]!.parameters.properties as object), keys);
    f.close();
  }
});

test('read_file of a missing file or a folder says so', async () => {
  const f = toolsFixture();
  mkdirSync(join(f.workspace, 'dir'));
  assert.equal(await f.call('read_file', { path: 'nope.txt' }), { ok: false, content: 'nope.txt does not exist' });
  assert.equal(await f.call('read_file', { path: 'dir' }), {
    ok: false,
    content: 'dir is a directory; use list_dir to see its entries',
  });
  f.close();
});

test('write_file refuses to replace an existing file unless overwrite is true', async () => {
  const f = toolsFixture();
  assert.equal(await f.call('write_file', { path: 'deep/new.txt', content: 'one' }), {
    ok: true,
    content: 'wrote 3 bytes to deep/new.txt',
  });
  assert.equal(await f.call('write_file', { path: 'deep/new.txt', content: 'two' }), {
    ok: false,
    content: 'deep/new.txt already exists; pass overwrite: true to replace it',
  });
  assert.equal(await f.call('write_file', { path: 'deep/new.txt', content: 'two', overwrite: true }), {
    ok: true,
    content: 'wrote 3 bytes to deep/new.txt',
  });
  assert.is(readFileSync(join(f.workspace, 'deep/new.txt'), 'utf8'), 'two');
  f.close();
});

test('edit_file replaces exactly one match and explains none and many', async () => {
  const f = toolsFixture();
  writeFileSync(join(f.workspace, 'e.txt'), 'a $& b a');
  const cases: [Record<string, string>, { ok: boolean; content: string }, string][] = [
    [
      { old_text: 'zzz', new_text: 'y' },
      { ok: false, content: 'old_text was not found in e.txt; read the file and copy the text exactly' },
      'a $& b a',
    ],
    [
      { old_text: 'a', new_text: 'y' },
      {
        ok: false,
        content: 'old_text matches 2 places in e.txt; include more surrounding text so it matches exactly once',
      },
      'a $& b a',
    ],
    [{ old_text: '$& b', new_text: '$1' }, { ok: true, content: 'edited e.txt' }, 'a $1 a'],
  ];
  for (const [args, expected, after] of cases) {
    assert.equal(await f.call('edit_file', { path: 'e.txt', ...args }), expected);
    assert.is(readFileSync(join(f.workspace, 'e.txt'), 'utf8'), after);
  }
  f.close();
});

test('append_file creates or extends a file', async () => {
  const f = toolsFixture();
  await f.call('append_file', { path: 'log.txt', content: 'a\n' });
  assert.equal(await f.call('append_file', { path: 'log.txt', content: 'b\n' }), {
    ok: true,
    content: 'appended 2 bytes to log.txt',
  });
  assert.is(readFileSync(join(f.workspace, 'log.txt'), 'utf8'), 'a\nb\n');
  f.close();
});

test('list_dir sorts entries, marks folders and hides protected ones', async () => {
  const f = toolsFixture();
  for (const name of ['b.txt', '.env', '.env.local', '.npmrc', 'a.md']) writeFileSync(join(f.workspace, name), 'x');
  for (const name of ['src', '.ssh', '.aws']) mkdirSync(join(f.workspace, name));
  symlinkSync(join(f.workspace, '.env'), join(f.workspace, 'innocent.txt'));
  symlinkSync(join(f.workspace, '.ssh'), join(f.workspace, 'keys'));
  assert.equal(await f.call('list_dir', {}), { ok: true, content: 'a.md\nb.txt\nsrc/' });
  f.close();
});

test('search_files finds contents by regex and names by glob, paginated, never inside protected files', async () => {
  const f = toolsFixture();
  mkdirSync(join(f.workspace, 'src'));
  mkdirSync(join(f.workspace, '.ssh'));
  writeFileSync(join(f.workspace, 'src', 'a.ts'), 'const token = 1;\nlet x;\nconst token2 = 2;\n');
  writeFileSync(join(f.workspace, 'src', 'b.md'), 'token here\n');
  writeFileSync(join(f.workspace, '.env'), 'token=secret\n');
  writeFileSync(join(f.workspace, '.ssh', 'config'), 'token\n');
  assert.equal(await f.call('search_files', { pattern: 'token' }), {
    ok: true,
    content: 'src/a.ts:1: const token = 1;\nsrc/a.ts:3: const token2 = 2;\nsrc/b.md:1: token here',
  });
  assert.equal(await f.call('search_files', { pattern: 'token', limit: 2 }), {
    ok: true,
    content:
      'src/a.ts:1: const token = 1;\nsrc/a.ts:3: const token2 = 2;\n\n' +
      '[search_files: more matches; continue with offset=2]',
  });
  assert.equal(await f.call('search_files', { pattern: 'token', offset: 2 }), {
    ok: true,
    content: 'src/b.md:1: token here',
  });
  assert.equal(await f.call('search_files', { pattern: 'TOKEN', ignore_case: true, include: '*.md' }), {
    ok: true,
    content: 'src/b.md:1: token here',
  });
  assert.equal(await f.call('search_files', { pattern: '*.ts', mode: 'name' }), { ok: true, content: 'src/a.ts' });
  assert.equal(await f.call('search_files', { pattern: '*', mode: 'name' }), {
    ok: true,
    content: 'src/a.ts\nsrc/b.md',
  });
  assert.equal(await f.call('search_files', { pattern: '(' }), {
    ok: false,
    content: 'pattern is not a valid regular expression (Invalid regular expression: /(/: Unterminated group)',
  });
  f.close();
});

test('search_files tests each line on its own: anchors hold per line, the last line needs no newline', async () => {
  const f = toolsFixture();
  writeFileSync(join(f.workspace, 'a.txt'), 'end\n\nstart end\r\nlast end');
  writeFileSync(join(f.workspace, 'b.txt'), 'x\n');
  assert.equal(await f.call('search_files', { pattern: 'end$' }), {
    ok: true,
    content: 'a.txt:1: end\na.txt:4: last end',
  });
  assert.equal(await f.call('search_files', { pattern: '^$' }), {
    ok: true,
    content: 'a.txt:2: \nb.txt:2: ',
  });
  assert.equal(await f.call('search_files', { pattern: 'start end\\r$' }), {
    ok: true,
    content: 'a.txt:3: start end\r',
  });
  assert.equal(await f.call('search_files', { pattern: 'end\\nstart' }), { ok: true, content: 'no matches' });
  f.close();
});

test('the sandbox comes from the trusted policy: a subagent, cron or heartbeat context cannot widen it', async () => {
  const f = toolsFixture();
  for (const context of [
    { channel: 'system', workspace: '/' },
    { channel: 'cron', workspace: '/etc', agent: 'sub-1' },
  ]) {
    assert.equal(await f.call('read_file', { path: 'passwd' }, context), {
      ok: false,
      content: 'passwd does not exist',
    });
    assert.equal(await f.call('read_file', { path: '/etc/passwd' }, context), {
      ok: false,
      content: 'access denied: /etc/passwd is outside the workspace',
    });
  }
  f.close();
});
test.run();
