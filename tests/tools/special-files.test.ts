// FIFOs, sockets and devices in the workspace (issue #34, item 7): every file tool refuses them at once, never blocking
// on a FIFO nobody writes and never opening a device.
import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { specialFileMessage } from '../../adapters/tools/sandbox/refusals.js';
import { toolsFixture } from '../support/tools-fixture.js';

test('read, write, append and edit refuse a FIFO, a socket and a device; search skips them', async () => {
  const f = toolsFixture();
  mkdirSync(join(f.workspace, 'special'));
  assert.is(spawnSync('mkfifo', [join(f.workspace, 'special', 'fifo')]).status, 0);
  // A character device like /dev/zero: reading it would never end.
  assert.is(spawnSync('mknod', [join(f.workspace, 'special', 'zero'), 'c', '1', '5']).status, 0);
  const server = createServer();
  server.listen(join(f.workspace, 'special', 'socket'));
  await once(server, 'listening');
  try {
    for (const name of ['fifo', 'zero', 'socket']) {
      const path = `special/${name}`;
      const refused = { ok: false, content: specialFileMessage(path) };
      const calls: [string, Record<string, unknown>][] = [
        ['read_file', { path }],
        ['write_file', { path, content: 'x', overwrite: true }],
        ['append_file', { path, content: 'x' }],
        ['edit_file', { path, old_text: 'a', new_text: 'b' }],
      ];
      for (const [tool, args] of calls) assert.equal(await f.call(tool, args), refused, `${tool} ${name}`);
    }
    const exists = 'special/fifo already exists; pass overwrite: true to replace it';
    assert.equal(await f.call('write_file', { path: 'special/fifo', content: 'x' }), { ok: false, content: exists });
    assert.equal(await f.call('search_files', { pattern: '.', path: 'special' }), { ok: true, content: 'no matches' });
    assert.equal(await f.call('list_dir', { path: 'special' }), { ok: true, content: 'fifo\nsocket\nzero' });
    const lines = toolsFixture(() => ({ readFile: { mode: 'lines' } }));
    assert.is(spawnSync('mkfifo', [join(lines.workspace, 'fifo')]).status, 0);
    assert.equal(await lines.call('read_file', { path: 'fifo' }), { ok: false, content: specialFileMessage('fifo') });
    lines.close();
  } finally {
    server.close();
    f.close();
  }
});

test.run();
