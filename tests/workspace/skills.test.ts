import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SkillCatalog, type SkillRoot } from '../../store/skills.js';

/** Three skill roots in a temp dir; the workspace and global roots do not exist until a skill is written there. */
function roots() {
  const base = mkdtempSync(join(tmpdir(), 'tern-'));
  const dirs: Record<SkillRoot, string> = { workspace: join(base, 'ws-skills'), global: join(base, 'home-skills'), builtin: join(base, 'builtin') };
  let tick = 1_700_000_000;
  /** Each write gets a later mtime on the file and its folders, as an install or an editor's save would. */
  const write = (root: SkillRoot, folder: string, frontmatter: string) => {
    const dir = join(dirs[root], folder);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'SKILL.md'), `---\n${frontmatter}\n---\nDo the thing.\n`);
    tick += 10;
    for (const path of [join(dir, 'SKILL.md'), dir, dirs[root]]) utimesSync(path, tick, tick);
  };
  const catalog = new SkillCatalog((['workspace', 'global', 'builtin'] as const).map((root) => ({ root, dir: dirs[root] })));
  const listed = () => catalog.list().map((s) => `${s.root}:${s.name}:${s.description}`);
  return { catalog, write, listed, remove: () => rmSync(base, { recursive: true, force: true }) };
}

test('skill catalog lists skills sorted by name while the workspace and global roots are missing', () => {
  const r = roots();
  r.write('builtin', 'weather', 'name: weather\ndescription: Forecasts');
  r.write('builtin', 'atlas', 'description: Maps');
  assert.equal(r.listed(), ['builtin:atlas:Maps', 'builtin:weather:Forecasts']);
  r.remove();
});

test('skill catalog sees a skill installed into a root that did not exist at the previous look', () => {
  const r = roots();
  r.write('builtin', 'weather', 'description: Forecasts');
  assert.equal(r.listed(), ['builtin:weather:Forecasts']);
  r.write('workspace', 'notes', 'description: Keeps notes');
  assert.equal(r.listed(), ['workspace:notes:Keeps notes', 'builtin:weather:Forecasts']);
  r.remove();
});

test('skill catalog sees an edited description at the next look', () => {
  const r = roots();
  r.write('global', 'weather', 'description: Forecasts');
  assert.equal(r.listed(), ['global:weather:Forecasts']);
  r.write('global', 'weather', 'description: Forecasts for three days');
  assert.equal(r.listed(), ['global:weather:Forecasts for three days']);
  r.remove();
});

test('skill catalog keeps the first root that has a name', () => {
  const r = roots();
  r.write('builtin', 'weather', 'description: Built in');
  r.write('global', 'weather', 'description: Installed globally');
  r.write('workspace', 'weather', 'description: The workspace one');
  assert.equal(r.listed(), ['workspace:weather:The workspace one']);
  r.remove();
});

test('skill catalog answers the same list object while nothing changed', () => {
  const r = roots();
  r.write('builtin', 'weather', 'description: Forecasts');
  const first = r.catalog.list();
  assert.is(r.catalog.list(), first);
  r.write('builtin', 'weather', 'description: Forecasts, edited');
  assert.is.not(r.catalog.list(), first);
  r.remove();
});

test.run();
