// `npm run prepare` (adapters/cli/prepare.mjs): npm install builds the bin; the first `npx tern` (npm exec) must use
// the build that is there rather than rebuild it silently.
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { repoRoot } from '../support/cli.js';

/** A package with the prepare script, a bin (or not) and an `npm` on PATH that only records how it was called. */
function fakePackage(withBin: boolean) {
  const root = mkdtempSync(join(tmpdir(), 'tern-prepare-'));
  mkdirSync(join(root, 'adapters', 'cli'), { recursive: true });
  copyFileSync(join(repoRoot, 'adapters', 'cli', 'prepare.mjs'), join(root, 'adapters', 'cli', 'prepare.mjs'));
  writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'tern', bin: { tern: 'dist/tern.cjs' } }));
  if (withBin) {
    mkdirSync(join(root, 'dist'));
    writeFileSync(join(root, 'dist', 'tern.cjs'), '');
  }
  const tools = join(root, 'tools');
  mkdirSync(tools);
  writeFileSync(join(tools, 'npm'), `#!/bin/sh\necho "$@" >> ${join(root, 'npm-calls')}\n`);
  chmodSync(join(tools, 'npm'), 0o755);
  const run = (npmCommand: string) =>
    spawnSync(process.execPath, [join(root, 'adapters', 'cli', 'prepare.mjs')], {
      encoding: 'utf8',
      env: { PATH: `${tools}:${process.env.PATH}`, npm_command: npmCommand },
    });
  const calls = () => (existsSync(join(root, 'npm-calls')) ? readFileSync(join(root, 'npm-calls'), 'utf8') : '');
  return { run, calls, remove: () => rmSync(root, { recursive: true, force: true }) };
}

test('under npx (npm exec) an existing build is used as it is', () => {
  const pkg = fakePackage(true);
  const result = pkg.run('exec');
  assert.equal([result.status, result.stderr, pkg.calls()], [0, '', '']);
  pkg.remove();
});

test('under npx without a build, it builds once and says so', () => {
  const pkg = fakePackage(false);
  const result = pkg.run('exec');
  assert.equal(
    [result.status, result.stderr, pkg.calls()],
    [0, 'tern: no build yet; building it once (npm run build)\n', 'run build\n'],
  );
  pkg.remove();
});

test('npm install and npm ci always build', () => {
  for (const command of ['install', 'ci']) {
    const pkg = fakePackage(true);
    const result = pkg.run(command);
    assert.equal([result.status, result.stderr, pkg.calls()], [0, '', 'run build\n'], command);
    pkg.remove();
  }
});

test.run();
