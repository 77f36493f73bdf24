import { existsSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  DANGEROUS_PATTERN_MESSAGE,
  OUTSIDE_WORKING_DIR_MESSAGE,
  REMOTE_EXEC_MESSAGE,
} from '../../adapters/tools/exec/exec-guard.js';
import { toolsFixture } from '../support/tools-fixture.js';

test('exec runs a command in the workspace and returns its combined output', async () => {
  const f = toolsFixture();
  writeFileSync(join(f.workspace, 'a.txt'), 'alpha\n');
  mkdirSync(join(f.workspace, 'sub'));
  const cases: [Record<string, unknown>, { ok: boolean; content: string }][] = [
    [{ command: 'cat a.txt' }, { ok: true, content: 'alpha\n' }],
    [
      { command: 'pwd', working_dir: 'sub' },
      { ok: true, content: `${join(f.workspace, 'sub')}\n` },
    ],
    [{ command: 'echo out; echo err >&2' }, { ok: true, content: 'out\nerr\n' }],
    [{ command: 'true' }, { ok: true, content: '(no output)' }],
    [{ command: 'echo nope; exit 3' }, { ok: false, content: 'nope\n\n[exec: exit code 3]' }],
    [
      { command: 'sleep 5', timeout_seconds: 1 },
      { ok: false, content: '(no output)\n[exec: stopped after 1 s timeout]' },
    ],
  ];
  for (const [args, expected] of cases) assert.equal(await f.call('exec', args), expected, JSON.stringify(args));
  f.close();
});

test('exec cuts output at the cap', async () => {
  const f = toolsFixture(() => ({ exec: { maxOutputBytes: 5 } }));
  assert.equal(await f.call('exec', { command: 'echo 0123456789' }), {
    ok: true,
    content: '01234\n[exec: output cut at 5 bytes]',
  });
  f.close();
});

test('a refused command never runs, fails with the exact message and is logged at error level', async () => {
  // The guard alone: with isolation on, a bulk deletion inside the workspace is the sandbox's to contain.
  const f = toolsFixture(() => ({ exec: { isolation: 'off' } }));
  const cases: [string, boolean, string][] = [
    ['rm -rf victim', false, DANGEROUS_PATTERN_MESSAGE],
    ['touch ../escaped', false, OUTSIDE_WORKING_DIR_MESSAGE],
    ['touch remote-made', true, REMOTE_EXEC_MESSAGE],
  ];
  mkdirSync(join(f.workspace, 'victim'));
  for (const [command, remote, message] of cases) {
    assert.equal(await f.call('exec', { command }, { remote, channel: remote ? 'telegram' : 'cli' }), {
      ok: false,
      content: message,
    });
  }
  assert.ok(existsSync(join(f.workspace, 'victim')));
  assert.not.ok(existsSync(join(f.workspace, '..', 'escaped')));
  assert.not.ok(existsSync(join(f.workspace, 'remote-made')));
  assert.equal(
    f.logged,
    cases.map(([, , message]) => `error: ${message}`),
  );
  f.close();
});

test('without restrict_to_workspace the deny patterns still block', async () => {
  const f = toolsFixture((policy) => ({ sandbox: { ...policy, restrictToWorkspace: false } }));
  // Isolated, a bulk deletion is refused where it reaches out of the workspace; the guard alone refuses every one.
  assert.equal(await f.call('exec', { command: 'rm -rf ../nothing-here' }), {
    ok: false,
    content: DANGEROUS_PATTERN_MESSAGE,
  });
  assert.equal(await f.call('exec', { command: 'ls /etc/hostname' }), { ok: true, content: '/etc/hostname\n' });
  f.close();
});

test('custom_deny_patterns add to the built-in list', async () => {
  const f = toolsFixture(() => ({ exec: { customDenyPatterns: ['\\bgit\\s+push\\b'] } }));
  assert.equal(await f.call('exec', { command: 'GIT  push origin main' }), {
    ok: false,
    content: DANGEROUS_PATTERN_MESSAGE,
  });
  f.close();
});

test('an invalid custom pattern is a configuration error naming the entry', () => {
  assert.throws(
    () => toolsFixture(() => ({ exec: { customDenyPatterns: ['ok', '(unclosed'] } })),
    (error: Error) =>
      error.message ===
      'tools.exec.custom_deny_patterns[1] is not a valid regular expression: ' +
        'Invalid regular expression: /(unclosed/i: Unterminated group',
  );
});

test('exactly the enabled tools are registered', () => {
  const all = toolsFixture();
  assert.equal(
    all.registry.list().map((t) => t.name),
    [
      'read_file',
      'write_file',
      'edit_file',
      'append_file',
      'list_dir',
      'search_files',
      'exec',
      'web_search',
      'web_fetch',
      'load_image',
    ],
  );
  all.close();
  const f = toolsFixture(() => ({
    exec: { enabled: false },
    fetch: { enabled: false },
    searchFiles: { enabled: false },
    readFile: { enabled: false },
    search: { engines: {} },
    messaging: { loadImageEnabled: false },
  }));
  assert.equal(
    f.registry.list().map((t) => t.name),
    ['write_file', 'edit_file', 'append_file', 'list_dir'],
  );
  f.close();
});
test('bad enumerated options name the field and the allowed values', () => {
  const cases: [Parameters<typeof toolsFixture>[0], string][] = [
    [
      () => ({ readFile: { mode: 'pages' as 'bytes' } }),
      'tools.read_file.mode must be "bytes" or "lines", got "pages"',
    ],
    [
      () => ({ fetch: { format: 'html' as 'markdown' } }),
      'tools.web.fetch.format must be "plaintext" or "markdown", got "html"',
    ],
  ];
  for (const [build, message] of cases)
    assert.throws(
      () => toolsFixture(build),
      (error: Error) => error.message === message,
      message,
    );
});
test.run();
