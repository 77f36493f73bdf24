import { linkSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Envelope } from '../../bus/index.js';
import { startTurnFixture } from '../support/turn-fixture.js';
import { toolsFixture } from '../support/tools-fixture.js';
import { completion } from '../support/vendor-chat-completions.js';

// Folders the config opens to the file tools, each holding what the protected-file rules refuse.
const fixture = toolsFixture((policy) => ({
  sandbox: {
    ...policy,
    allowReadPaths: [join(policy.home, '..', 'shared'), policy.home, join(policy.userHome, '.ssh')],
    allowWritePaths: [join(policy.home, '..', 'out'), join(policy.workspace, 'sessions')],
  },
}));
const { root, home, workspace, userHome } = fixture;
const shared = join(root, 'shared');
const out = join(root, 'out');
mkdirSync(join(shared, '.ssh'), { recursive: true });
mkdirSync(join(shared, '.config', 'gh'), { recursive: true });
mkdirSync(join(shared, '.aws'), { recursive: true });
mkdirSync(out);
mkdirSync(join(userHome, '.ssh'));
mkdirSync(join(workspace, 'sessions'));
mkdirSync(join(home, 'auth', 'mcp'), { recursive: true });
const secrets: Record<string, string> = {
  '.env': 'TOKEN=1',
  '.ENV': 'TOKEN=2',
  '.env.local': 'TOKEN=3',
  '.security.yml.bak': 'TOKEN: 4',
  '.netrc': 'TOKEN 5',
  '.git-credentials': 'TOKEN 6',
  '.ssh/id_rsa': 'TOKEN 7',
  '.config/gh/hosts.yml': 'TOKEN 8',
  '.aws/credentials': 'TOKEN 9',
};
for (const [name, text] of Object.entries(secrets)) writeFileSync(join(shared, name), text);
writeFileSync(join(shared, 'notes.txt'), 'TOKEN in notes');
symlinkSync(join(shared, '.env'), join(shared, 'link.txt'));
linkSync(join(shared, '.netrc'), join(shared, 'hard.txt'));
writeFileSync(join(userHome, '.ssh', 'config'), 'Host x');
writeFileSync(join(home, 'auth.json'), '{"token":"TOKEN"}');
writeFileSync(join(home, 'auth', 'mcp', 'server.json'), '{"token":"TOKEN"}');
writeFileSync(join(home, '.security.yml'), 'model_list: {}');

const denied = (path: string) => ({ ok: false, content: `access denied: ${path} is a protected file` });

const files = suite('allow paths never override the protected files');
files.after(() => fixture.close());

files(
  'reads of protected files inside allow_read_paths, allow_write_paths and an allowed credential folder are refused',
  async () => {
    const paths = [
      ...Object.keys(secrets).map((name) => join(shared, name)),
      join(shared, 'link.txt'),
      join(userHome, '.ssh', 'config'),
      join(home, 'auth.json'),
      join(home, 'auth', 'mcp', 'server.json'),
      join(home, '.security.yml'),
    ];
    for (const path of paths) {
      for (const tool of ['read_file', 'load_image'])
        assert.equal(await fixture.call(tool, { path }), denied(path), `${tool} ${path}`);
    }
    assert.equal(await fixture.call('read_file', { path: join(shared, 'hard.txt') }), {
      ok: false,
      content:
        `access denied: ${join(shared, 'hard.txt')} has more than one hard link; ` +
        'the file tools do not open hard-linked files (another name of it may be protected or outside the workspace)',
    });
    assert.equal(await fixture.call('read_file', { path: join(shared, 'notes.txt') }), {
      ok: true,
      content: 'TOKEN in notes',
    });
  },
);

files('listings and searches inside an allow path leave the protected entries out', async () => {
  // hard.txt is listed by its own name, but neither read nor searched (it is another name of .netrc).
  assert.equal(await fixture.call('list_dir', { path: shared }), {
    ok: true,
    content: '.config/\nhard.txt\nnotes.txt',
  });
  assert.equal(await fixture.call('list_dir', { path: join(shared, '.config') }), {
    ok: true,
    content: '(empty folder)',
  });
  assert.equal(await fixture.call('search_files', { pattern: 'TOKEN', path: shared }), {
    ok: true,
    content: `${join(shared, 'notes.txt')}:1: TOKEN in notes`,
  });
  assert.equal(await fixture.call('list_dir', { path: join(userHome, '.ssh') }), denied(join(userHome, '.ssh')));
});

files(
  'writes of protected files inside allow_write_paths are refused, ' +
    'the sessions folder included; other files are written',
  async () => {
    for (const name of ['.env', '.npmrc', '.pgpass', '.ssh/authorized_keys', '.aws/config', '.security.yml']) {
      const path = join(out, name);
      for (const tool of ['write_file', 'append_file'])
        assert.equal(await fixture.call(tool, { path, content: 'x' }), denied(path), `${tool} ${path}`);
    }
    const session = join(workspace, 'sessions', 'data.mdb');
    assert.equal(await fixture.call('write_file', { path: session, content: 'x' }), denied(session));
    assert.equal(await fixture.call('write_file', { path: join(out, 'ok.txt'), content: 'x' }), {
      ok: true,
      content: `wrote 1 bytes to ${join(out, 'ok.txt')}`,
    });
  },
);

files.run();

const turns = suite('allow paths from the config, in a turn');

turns('tools.allow_read_paths opens a folder to read_file, except its protected files', async () => {
  const outside = mkdtempSync(join(tmpdir(), 'tern-shared-'));
  writeFileSync(join(outside, '.env'), 'TOKEN=1');
  writeFileSync(join(outside, 'notes.txt'), 'shared notes');
  const f = await startTurnFixture({ tools: { allow_read_paths: [outside] } });
  try {
    const call = (id: string, path: string) =>
      completion(
        {
          tool_calls: [{ id, type: 'function', function: { name: 'read_file', arguments: JSON.stringify({ path }) } }],
        },
        'tool_calls',
      );
    f.vendor.reply(
      call('c1', join(outside, 'notes.txt')),
      call('c2', join(outside, '.env')),
      completion({ content: 'done' }),
    );
    await f.send('read both');
    const results = f.events
      .filter((e): e is Envelope<'tool.completed'> => e.type === 'tool.completed')
      .map((e) => [e.data.ok, e.data.content]);
    assert.equal(results, [
      [true, 'shared notes'],
      [false, `access denied: ${join(outside, '.env')} is a protected file`],
    ]);
  } finally {
    await f.close();
    rmSync(outside, { recursive: true, force: true });
  }
});

turns.run();
