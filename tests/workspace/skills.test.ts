import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, mkdtempSync, renameSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SkillCatalog, type SkillRoot } from '../../store/skills.js';
import { RECHECK_MS } from '../../store/watched-directory.js';
import { eventually } from '../support/eventually.js';

/**
 * Three skill roots in a temp dir; the workspace and global roots do not exist until a skill is written there.
 * `watched`: the catalog's clock stands still except in `startWatching` and `later`, so between those only a change
 * signalled by `fs.watch` makes a look stat anything.
 */
function roots(options: { watched: boolean }) {
  const base = mkdtempSync(join(tmpdir(), 'tern-'));
  const dirs: Record<SkillRoot, string> = {
    workspace: join(base, 'ws-skills'),
    global: join(base, 'home-skills'),
    builtin: join(base, 'builtin'),
  };
  let tick = 1_700_000_000;
  const stamp = (...paths: string[]) => {
    tick += 10;
    for (const path of paths) utimesSync(path, tick, tick);
  };
  /** Each write gets a later mtime on the file and its folders, as an install or an editor's save would. */
  const write = (root: SkillRoot, folder: string, frontmatter: string) => {
    const dir = join(dirs[root], folder);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'SKILL.md'), `---\n${frontmatter}\n---\nDo the thing.\n`);
    stamp(join(dir, 'SKILL.md'), dir, dirs[root]);
  };
  /** An editor's save: a new file renamed over SKILL.md. */
  const saveByRename = (root: SkillRoot, folder: string, frontmatter: string) => {
    const dir = join(dirs[root], folder);
    writeFileSync(join(dir, '.SKILL.md.swp'), `---\n${frontmatter}\n---\nDo the thing.\n`);
    stamp(join(dir, '.SKILL.md.swp'));
    renameSync(join(dir, '.SKILL.md.swp'), join(dir, 'SKILL.md'));
  };
  let now = 0;
  const catalog = new SkillCatalog(
    (['workspace', 'global', 'builtin'] as const).map((root) => ({ root, dir: dirs[root] })),
    options.watched ? { now: () => now } : { watch: false },
  );
  const listed = () => catalog.list().map((s) => `${s.root}:${s.name}:${s.description}`);
  /** Watched: waits for the change to be signalled; without watching the very next look must see it. */
  const next = (expected: string[]) => (options.watched ? eventually(listed, expected) : listed());
  const later = () => {
    now += RECHECK_MS;
    return listed();
  };
  const startWatching = () => {
    listed();
    return later();
  };
  const done = () => {
    catalog.close();
    rmSync(base, { recursive: true, force: true });
  };
  return { catalog, dirs, write, saveByRename, listed, next, later, startWatching, done };
}

for (const watched of [false, true]) {
  const mode = watched ? 'watched' : 'without watching';

  test(`${mode}, the catalog lists skills sorted by name while the workspace and global roots are missing`, () => {
    const r = roots({ watched });
    r.write('builtin', 'weather', 'name: weather\ndescription: Forecasts');
    r.write('builtin', 'atlas', 'description: Maps');
    assert.equal(r.listed(), ['builtin:atlas:Maps', 'builtin:weather:Forecasts']);
    r.done();
  });

  test(`${mode}, the catalog sees a skill installed into a root that did not exist at the previous look`, async () => {
    const r = roots({ watched });
    r.write('builtin', 'weather', 'description: Forecasts');
    assert.equal(r.startWatching(), ['builtin:weather:Forecasts']);
    r.write('workspace', 'notes', 'description: Keeps notes');
    if (watched)
      assert.equal(
        r.listed(),
        ['builtin:weather:Forecasts'],
        'no change signalled yet: the missing root is watched through its parent',
      );
    assert.equal(await r.next(['workspace:notes:Keeps notes', 'builtin:weather:Forecasts']), [
      'workspace:notes:Keeps notes',
      'builtin:weather:Forecasts',
    ]);
    r.write('workspace', 'atlas', 'description: Maps');
    assert.equal(await r.next(['workspace:atlas:Maps', 'workspace:notes:Keeps notes', 'builtin:weather:Forecasts']), [
      'workspace:atlas:Maps',
      'workspace:notes:Keeps notes',
      'builtin:weather:Forecasts',
    ]);
    r.done();
  });

  test(`${mode}, the catalog sees skills installed into roots that exist`, async () => {
    const r = roots({ watched });
    r.write('builtin', 'weather', 'description: Forecasts');
    r.write('global', 'atlas', 'description: Maps');
    assert.equal(r.startWatching(), ['global:atlas:Maps', 'builtin:weather:Forecasts']);
    r.write('builtin', 'notes', 'description: Keeps notes');
    assert.equal(await r.next(['global:atlas:Maps', 'builtin:notes:Keeps notes', 'builtin:weather:Forecasts']), [
      'global:atlas:Maps',
      'builtin:notes:Keeps notes',
      'builtin:weather:Forecasts',
    ]);
    r.write('global', 'zebra', 'description: Stripes');
    assert.equal(
      await r.next([
        'global:atlas:Maps',
        'builtin:notes:Keeps notes',
        'builtin:weather:Forecasts',
        'global:zebra:Stripes',
      ]),
      ['global:atlas:Maps', 'builtin:notes:Keeps notes', 'builtin:weather:Forecasts', 'global:zebra:Stripes'],
    );
    r.done();
  });

  test(`${mode}, the catalog sees an edited description, an editor-style save and a deleted SKILL.md`, async () => {
    const r = roots({ watched });
    r.write('global', 'weather', 'description: Forecasts');
    assert.equal(r.startWatching(), ['global:weather:Forecasts']);
    r.write('global', 'weather', 'description: Forecasts for three days');
    assert.equal(await r.next(['global:weather:Forecasts for three days']), [
      'global:weather:Forecasts for three days',
    ]);
    r.saveByRename('global', 'weather', 'description: Forecasts, saved by rename');
    assert.equal(await r.next(['global:weather:Forecasts, saved by rename']), [
      'global:weather:Forecasts, saved by rename',
    ]);
    rmSync(join(r.dirs.global, 'weather', 'SKILL.md'));
    assert.equal(await r.next([]), []);
    r.done();
  });

  test(`${mode}, a skill folder made before its SKILL.md is listed once the file is written`, async () => {
    const r = roots({ watched });
    r.write('builtin', 'weather', 'description: Forecasts');
    mkdirSync(join(r.dirs.builtin, 'notes'));
    assert.equal(r.startWatching(), ['builtin:weather:Forecasts']);
    writeFileSync(join(r.dirs.builtin, 'notes', 'SKILL.md'), '---\ndescription: Keeps notes\n---\n');
    assert.equal(await r.next(['builtin:notes:Keeps notes', 'builtin:weather:Forecasts']), [
      'builtin:notes:Keeps notes',
      'builtin:weather:Forecasts',
    ]);
    r.done();
  });

  test(`${mode}, the catalog keeps the first root that has a name`, () => {
    const r = roots({ watched });
    r.write('builtin', 'weather', 'description: Built in');
    r.write('global', 'weather', 'description: Installed globally');
    r.write('workspace', 'weather', 'description: The workspace one');
    assert.equal(r.listed(), ['workspace:weather:The workspace one']);
    r.done();
  });

  test(`${mode}, the catalog answers the same list object while nothing changed`, async () => {
    const r = roots({ watched });
    r.write('builtin', 'weather', 'description: Forecasts');
    r.startWatching();
    const first = r.catalog.list();
    assert.is(r.catalog.list(), first);
    assert.is(r.later() && r.catalog.list(), first, 'a recheck after RECHECK_MS finds nothing changed');
    r.write('builtin', 'weather', 'description: Forecasts, edited');
    assert.equal(await r.next(['builtin:weather:Forecasts, edited']), ['builtin:weather:Forecasts, edited']);
    assert.is.not(r.catalog.list(), first);
    r.done();
  });
}

test('watched, an edit nothing signalled is seen once RECHECK_MS passed (file systems where inotify is silent)', () => {
  const r = roots({ watched: true });
  r.write('builtin', 'weather', 'description: Forecasts');
  assert.equal(r.startWatching(), ['builtin:weather:Forecasts']);
  r.write('builtin', 'weather', 'description: Forecasts, edited');
  assert.equal(r.listed(), ['builtin:weather:Forecasts'], 'no change signalled yet: the cached list');
  assert.equal(r.later(), ['builtin:weather:Forecasts, edited']);
  r.done();
});

test.run();
