// The built `tern` remembers where lmdb and its native addons were found (adapters/cli/located-files.ts).
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { LocatedFiles, type Location } from '../../adapters/cli/located-files.js';

interface Context {
  dir: string;
  file: string;
  searches: number;
  locate: () => Location;
}

const test = suite<Context>('located files');

test.before.each((context) => {
  context.dir = mkdtempSync(join(tmpdir(), 'tern-located-'));
  context.file = join(context.dir, 'addon.node');
  writeFileSync(context.file, 'binary');
  context.searches = 0;
  context.locate = () => {
    context.searches += 1;
    return { file: context.file, dir: context.dir };
  };
});

test.after.each(({ dir }) => rmSync(dir, { recursive: true, force: true }));

/** What one run keeps, as the next run reads it. */
function nextRun(located: LocatedFiles, env: NodeJS.ProcessEnv = {}): LocatedFiles {
  return new LocatedFiles(located.serialize(), env);
}

test('a search runs once, and the next run takes its answer without searching', (context) => {
  const first = new LocatedFiles(undefined, {});
  assert.is(first.file('lmdb addon', context.locate), context.file);
  assert.is(first.unsaved, true);
  const second = nextRun(first);
  assert.is(second.unsaved, false);
  assert.is(second.file('lmdb addon', context.locate), context.file);
  assert.is(context.searches, 1);
  assert.is(second.unsaved, false);
});

const changes: Array<[string, (context: Context) => void]> = [
  ['its folder changed (a rebuild added a build there)', ({ dir }) => utimesSync(dir, new Date(), new Date(Date.now() + 5000))],
  ['its file is gone', ({ file }) => rmSync(file)],
  ['its folder is gone', ({ dir }) => rmSync(dir, { recursive: true })],
];

for (const [what, change] of changes) {
  test(`a kept answer is searched again when ${what}`, (context) => {
    const first = new LocatedFiles(undefined, {});
    first.file('lmdb addon', context.locate);
    const second = nextRun(first);
    change(context);
    mkdirSync(context.dir, { recursive: true });
    writeFileSync(context.file, 'rebuilt');
    assert.is(second.file('lmdb addon', context.locate), context.file);
    assert.is(context.searches, 2);
    assert.is(second.unsaved, true);
  });
}

for (const name of ['PREBUILDS_ONLY', 'LIBC', 'npm_config_arch', 'LMDB_PREBUILD']) {
  test(`with ${name} set, node-gyp-build may choose another build: every run searches and nothing is kept`, (context) => {
    const env = { [name]: 'x' };
    const first = new LocatedFiles(undefined, env);
    assert.is(first.file('lmdb addon', context.locate), context.file);
    assert.is(first.unsaved, false);
    assert.is(new LocatedFiles(first.serialize(), env).file('lmdb addon', context.locate), context.file);
    assert.is(context.searches, 2);
  });
}

test('an answer whose folder does not exist is used but not kept', (context) => {
  const located = new LocatedFiles(undefined, {});
  assert.is(located.file('lmdb', () => ({ file: context.file, dir: join(context.dir, 'missing') })), context.file);
  assert.is(located.unsaved, false);
});

const unreadable: Array<[string, string]> = [
  ['not JSON', '{"lmdb addon":'],
  ['not an object', '[1,2]'],
  ['an entry without its folder time', '{"lmdb addon":{"file":"/x.node","dir":"/"}}'],
];

for (const [what, text] of unreadable) {
  test(`kept answers that are ${what} are ignored`, (context) => {
    const located = new LocatedFiles(Buffer.from(text), {});
    assert.is(located.file('lmdb addon', context.locate), context.file);
    assert.is(context.searches, 1);
  });
}

test('answers are kept per key', (context) => {
  const other = join(context.dir, 'extractor.node');
  writeFileSync(other, 'binary');
  const first = new LocatedFiles(undefined, {});
  first.file('lmdb addon', context.locate);
  assert.is(first.file('msgpackr-extract addon', () => ({ file: other, dir: context.dir })), other);
  const second = nextRun(first);
  assert.is(second.file('msgpackr-extract addon', context.locate), other);
  assert.is(second.file('lmdb addon', context.locate), context.file);
  assert.is(context.searches, 1);
});

test.run();
