import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WorkspaceError, WorkspaceFiles, type PromptFile } from '../../store/workspace.js';

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

const RELOADED: [PromptFile, string][] = [
  ['soul', 'SOUL.md'],
  ['user', 'USER.md'],
  ['identity', 'IDENTITY.md'],
  ['memory', 'memory/MEMORY.md'],
  ['agent', 'AGENT.md'],
];

for (const [file, name] of RELOADED) {
  test(`an edit of ${name} is read on the next request, without a restart`, () => {
    const w = workspace();
    const files = new WorkspaceFiles(w.root);
    w.write(name, 'first');
    assert.is(files.text(file), 'first');
    w.write(name, 'second, longer');
    assert.is(files.text(file), 'second, longer');
    w.remove();
  });
}

test('an unchanged file is served from the cache: same mtime and size means no re-read', () => {
  const w = workspace();
  const files = new WorkspaceFiles(w.root);
  w.write('SOUL.md', 'calm');
  w.write('AGENT.md', '---\nname: Tern\n---\nBody.');
  const first = files.agent();
  assert.is(files.text('soul'), 'calm');
  assert.is(files.agent(), first);
  w.remove();
});

test('a missing file reads as empty text; AGENT.md without frontmatter is all body', () => {
  const w = workspace();
  const files = new WorkspaceFiles(w.root);
  assert.is(files.text('user'), '');
  assert.equal(files.agent(), { frontmatter: {}, body: '' });
  w.write('AGENT.md', '# Guide\nBe brief.');
  assert.equal(files.agent(), { frontmatter: {}, body: '# Guide\nBe brief.' });
  w.remove();
});

test('AGENT.md frontmatter is parsed and re-parsed when the file changes', () => {
  const w = workspace();
  const files = new WorkspaceFiles(w.root);
  w.write('AGENT.md', '---\nname: Scout\ndescription: Finds things\ntools: [read_file, todo]\nskills: [weather]\nmcpServers: [fs]\nmodel: fast\ncolor: blue\n---\nLook first.\n');
  assert.equal(files.agent(), {
    frontmatter: { name: 'Scout', description: 'Finds things', tools: ['read_file', 'todo'], skills: ['weather'], mcpServers: ['fs'], model: 'fast', color: 'blue' },
    body: 'Look first.\n',
  });
  w.write('AGENT.md', '---\nname: Ranger\n---\nLook twice.\n');
  assert.equal(files.agent(), { frontmatter: { name: 'Ranger' }, body: 'Look twice.\n' });
  w.remove();
});

const BAD: [string, string[]][] = [
  ['---\ntools: read_file\n---\n', ['tools: is not a list (allowed: a list of names)']],
  ['---\nname: [a, b]\nskills: [1]\n---\n', ['name: is not a string (allowed: text)', 'skills.0: is not a string (allowed: a name)']],
  ['---\n- just\n- a list\n---\n', ['(frontmatter): is not a mapping (allowed: name, description, tools, skills, mcpServers, model)']],
  ['---\nname: [unclosed\n---\n', ['(frontmatter): not valid YAML (Flow sequence in block collection must be sufficiently indented and end with a ] at line 1, column 16:)']],
];

for (const [text, problems] of BAD) {
  test(`invalid AGENT.md frontmatter is a WorkspaceError naming each field: ${JSON.stringify(text.split('\n')[1])}`, () => {
    const w = workspace();
    w.write('AGENT.md', text);
    try {
      new WorkspaceFiles(w.root).agent();
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
