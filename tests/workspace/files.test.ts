import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, mkdtempSync, renameSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RECHECK_MS } from '../../store/watched-directory.js';
import { WorkspaceError, WorkspaceFiles, type PromptFile } from '../../store/workspace.js';
import { eventually } from '../support/eventually.js';

function workspace() {
  const root = mkdtempSync(join(tmpdir(), 'tern-'));
  mkdirSync(join(root, 'memory'));
  let tick = 1_700_000_000;
  /** Each write gets a later mtime, as an editor's save would. */
  const write = (name: string, text: string) => {
    const path = join(root, name);
    writeFileSync(path, text);
    tick += 10;
    utimesSync(path, tick, tick);
  };
  return { root, write, remove: () => rmSync(root, { recursive: true, force: true }) };
}

/**
 * Files read through watches. The clock moves past RECHECK_MS once, so the first read starts the watches, and
 * then stands still: only a change signalled by `fs.watch` makes a read look at a file again.
 */
function watched(root: string) {
  let now = 0;
  const files = new WorkspaceFiles(root, { now: () => now });
  now = RECHECK_MS;
  return { files, later: () => (now += RECHECK_MS) };
}

const RELOADED: [PromptFile, string][] = [
  ['soul', 'SOUL.md'],
  ['user', 'USER.md'],
  ['identity', 'IDENTITY.md'],
  ['memory', 'memory/MEMORY.md'],
  ['agent', 'AGENT.md'],
];

for (const [file, name] of RELOADED) {
  test(`without watching, an edit of ${name} is read on the next request, without a restart`, () => {
    const w = workspace();
    const files = new WorkspaceFiles(w.root, { watch: false });
    w.write(name, 'first');
    assert.is(files.text(file), 'first');
    w.write(name, 'second, longer');
    assert.is(files.text(file), 'second, longer');
    w.remove();
  });

  test(`watched, an edit of ${name} reaches the reads once the change is signalled`, async () => {
    const w = workspace();
    const { files } = watched(w.root);
    w.write(name, 'first');
    assert.is(files.text(file), 'first');
    w.write(name, 'second, longer');
    assert.is(await eventually(() => files.text(file), 'second, longer'), 'second, longer');
    files.close();
    w.remove();
  });
}

test('watched, an unchanged file is served without a stat until a change is signalled or RECHECK_MS passed', () => {
  const w = workspace();
  const { files, later } = watched(w.root);
  w.write('SOUL.md', 'calm');
  assert.is(files.text('soul'), 'calm');
  w.write('SOUL.md', 'calm, then edited where inotify is silent');
  assert.is(files.text('soul'), 'calm', 'no change signalled yet: the cached text');
  later();
  assert.is(files.text('soul'), 'calm, then edited where inotify is silent');
  files.close();
  w.remove();
});

test('watched, a delete, a create and an editor-style rename over the file are each read once signalled', async () => {
  const w = workspace();
  const { files } = watched(w.root);
  assert.is(files.text('user'), '');
  w.write('USER.md', 'created');
  assert.is(await eventually(() => files.text('user'), 'created'), 'created');
  w.write('.USER.md.swp', 'saved by rename');
  renameSync(join(w.root, '.USER.md.swp'), join(w.root, 'USER.md'));
  assert.is(await eventually(() => files.text('user'), 'saved by rename'), 'saved by rename');
  rmSync(join(w.root, 'USER.md'));
  assert.is(await eventually(() => files.text('user'), ''), '');
  files.close();
  w.remove();
});

test('watched, memory/ created after the start, then deleted and created again, is read each time', async () => {
  const w = workspace();
  rmSync(join(w.root, 'memory'), { recursive: true });
  const { files } = watched(w.root);
  assert.is(files.text('memory'), '');
  mkdirSync(join(w.root, 'memory'));
  w.write('memory/MEMORY.md', 'remembered');
  assert.is(
    files.text('memory'),
    '',
    'no change signalled yet: the missing directory is watched through the workspace root',
  );
  assert.is(await eventually(() => files.text('memory'), 'remembered'), 'remembered');
  w.write('memory/MEMORY.md', 'remembered, edited');
  assert.is(
    await eventually(() => files.text('memory'), 'remembered, edited'),
    'remembered, edited',
    'memory/ itself is watched now',
  );
  rmSync(join(w.root, 'memory'), { recursive: true });
  assert.is(await eventually(() => files.text('memory'), ''), '');
  mkdirSync(join(w.root, 'memory'));
  w.write('memory/MEMORY.md', 'remembered again');
  assert.is(await eventually(() => files.text('memory'), 'remembered again'), 'remembered again');
  w.write('memory/MEMORY.md', 'and edited');
  assert.is(await eventually(() => files.text('memory'), 'and edited'), 'and edited');
  files.close();
  w.remove();
});

test('an unchanged file is served from the cache: same mtime and size means no re-read', () => {
  const w = workspace();
  const files = new WorkspaceFiles(w.root, { watch: false });
  w.write('SOUL.md', 'calm');
  w.write('AGENT.md', '---\nname: Tern\n---\nBody.');
  const first = files.agent();
  assert.is(files.text('soul'), 'calm');
  assert.is(files.agent(), first);
  w.remove();
});

test('a missing file reads as empty text; AGENT.md without frontmatter is all body', () => {
  const w = workspace();
  const files = new WorkspaceFiles(w.root, { watch: false });
  assert.is(files.text('user'), '');
  assert.equal(files.agent(), { frontmatter: {}, body: '' });
  assert.is(files.agent(), files.agent(), 'a missing AGENT.md is one cached document too');
  w.write('AGENT.md', '# Guide\nBe brief.');
  assert.equal(files.agent(), { frontmatter: {}, body: '# Guide\nBe brief.' });
  w.remove();
});

test('AGENT.md frontmatter is parsed and re-parsed when the file changes', () => {
  const w = workspace();
  const files = new WorkspaceFiles(w.root, { watch: false });
  w.write(
    'AGENT.md',
    '---\nname: Scout\ndescription: Finds things\ntools: [read_file, todo]\n' +
      'skills: [weather]\nmcpServers: [fs]\nmodel: fast\ncolor: blue\n---\nLook first.\n',
  );
  assert.equal(files.agent(), {
    frontmatter: {
      name: 'Scout',
      description: 'Finds things',
      tools: ['read_file', 'todo'],
      skills: ['weather'],
      mcpServers: ['fs'],
      model: 'fast',
      color: 'blue',
    },
    body: 'Look first.\n',
  });
  w.write('AGENT.md', '---\nname: Ranger\n---\nLook twice.\n');
  assert.equal(files.agent(), { frontmatter: { name: 'Ranger' }, body: 'Look twice.\n' });
  w.remove();
});

const BAD: [string, string[]][] = [
  ['---\ntools: read_file\n---\n', ['tools: is not a list (allowed: a list of names)']],
  [
    '---\nname: [a, b]\nskills: [1]\n---\n',
    ['name: is not a string (allowed: text)', 'skills.0: is not a string (allowed: a name)'],
  ],
  [
    '---\n- just\n- a list\n---\n',
    ['(frontmatter): is not a mapping (allowed: name, description, tools, skills, mcpServers, model)'],
  ],
  [
    '---\nname: [unclosed\n---\n',
    [
      '(frontmatter): not valid YAML (Flow sequence in block collection ' +
        'must be sufficiently indented and end with a ] at line 1, column 16:)',
    ],
  ],
];

for (const [text, problems] of BAD) {
  const field = JSON.stringify(text.split('\n')[1]);
  test(`invalid AGENT.md frontmatter is a WorkspaceError naming each field: ${field}`, () => {
    const w = workspace();
    w.write('AGENT.md', text);
    try {
      new WorkspaceFiles(w.root, { watch: false }).agent();
      assert.unreachable('agent() should throw');
    } catch (error) {
      assert.instance(error, WorkspaceError);
      assert.is((error as WorkspaceError).code, 'agent_frontmatter_invalid');
      assert.equal((error as WorkspaceError).problems, problems);
    }
    w.remove();
  });
}

test.run();
