import { linkSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { hardLinkMessage } from '../../adapters/tools/sandbox/refusals.js';
import { toolsFixture } from '../support/tools-fixture.js';

test(
  'a hard link to .env, made by exec or present already, ' + 'is neither read nor changed by the file tools',
  async () => {
    for (const restrictToWorkspace of [true, false]) {
      const f = toolsFixture((policy) => ({ sandbox: { ...policy, restrictToWorkspace }, exec: { isolation: 'off' } }));
      writeFileSync(join(f.workspace, '.env'), 'API_KEY=ENV-SECRET\n');
      linkSync(join(f.workspace, '.env'), join(f.workspace, 'present'));
      assert.equal(
        await f.call('exec', { command: 'ln .env made' }),
        { ok: true, content: '(no output)' },
        'isolation off: exec can make one',
      );
      for (const name of ['present', 'made']) {
        assert.equal(await f.call('read_file', { path: name }), { ok: false, content: hardLinkMessage(name) });
        assert.equal(await f.call('edit_file', { path: name, old_text: 'ENV-SECRET', new_text: 'changed' }), {
          ok: false,
          content: hardLinkMessage(name),
        });
        assert.equal(await f.call('write_file', { path: name, content: 'API_KEY=mine\n', overwrite: true }), {
          ok: false,
          content: hardLinkMessage(name),
        });
        assert.equal(await f.call('append_file', { path: name, content: 'MORE=1\n' }), {
          ok: false,
          content: hardLinkMessage(name),
        });
      }
      assert.equal(await f.call('search_files', { pattern: 'ENV-SECRET' }), { ok: true, content: 'no matches' });
      assert.is(readFileSync(join(f.workspace, '.env'), 'utf8'), 'API_KEY=ENV-SECRET\n');
      f.close();
    }
  },
);

test('a hard link to a file outside the workspace is neither read nor written', async () => {
  const f = toolsFixture();
  mkdirSync(join(f.root, 'outside'));
  writeFileSync(join(f.root, 'outside', 'secret.txt'), 'OUTSIDE-SECRET\n');
  linkSync(join(f.root, 'outside', 'secret.txt'), join(f.workspace, 'inside.txt'));
  assert.equal(await f.call('read_file', { path: 'inside.txt' }), {
    ok: false,
    content: hardLinkMessage('inside.txt'),
  });
  assert.equal(await f.call('write_file', { path: 'inside.txt', content: 'overwritten', overwrite: true }), {
    ok: false,
    content: hardLinkMessage('inside.txt'),
  });
  assert.is(readFileSync(join(f.root, 'outside', 'secret.txt'), 'utf8'), 'OUTSIDE-SECRET\n');
  f.close();
});

test('isolated exec cannot make a hard link to a protected or an outside file', async () => {
  const f = toolsFixture(() => ({ exec: { isolation: 'bwrap' } }));
  writeFileSync(join(f.workspace, '.env'), 'API_KEY=ENV-SECRET\n');
  const outside = join(f.root, 'outside.txt');
  writeFileSync(outside, 'OUTSIDE-SECRET\n');
  const command = `ln .env a 2>&1; ln "$(echo ${Buffer.from(outside).toString('base64')} | base64 -d)" b 2>&1; ls`;
  assert.equal(await f.call('exec', { command }), {
    ok: true,
    content:
      `ln: failed to create hard link 'a' => '.env': Invalid cross-device link\n` +
      `ln: failed to access '${outside}': No such file or directory\n`,
  });
  f.close();
});

test('an ordinary file (one link) is read and written as before', async () => {
  const f = toolsFixture();
  writeFileSync(join(f.workspace, 'plain.txt'), 'plain\n');
  assert.equal(await f.call('read_file', { path: 'plain.txt' }), { ok: true, content: 'plain\n' });
  assert.equal(await f.call('edit_file', { path: 'plain.txt', old_text: 'plain', new_text: 'edited' }), {
    ok: true,
    content: 'edited plain.txt',
  });
  f.close();
});
test.run();
