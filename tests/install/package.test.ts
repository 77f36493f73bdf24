// A clean `npm install` / `npm ci` on the Node versions Tern is installed with: no package that refuses them
// (EBADENGINE) and no install script npm 11 lists as not covered by `allowScripts`.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { repoRoot } from '../support/cli.js';

const { satisfies } = createRequire(import.meta.url)('semver') as {
  satisfies(version: string, range: string): boolean;
};

interface Package {
  name?: string;
  engines?: { node?: string };
  os?: string[];
  cpu?: string[];
  hasInstallScript?: boolean;
  allowScripts?: Record<string, boolean>;
}

const read = (file: string): unknown => JSON.parse(readFileSync(join(repoRoot, file), 'utf8'));
const manifest = read('package.json') as Package;
const lock = read('package-lock.json') as { packages: Record<string, Package> };
/** A platform package for another system (sharp's win32 build) is never installed here, so never checked. */
const forThisSystem = (pkg: Package): boolean =>
  (pkg.os === undefined || pkg.os.includes(process.platform)) &&
  (pkg.cpu === undefined || pkg.cpu.includes(process.arch));
const installed = Object.entries(lock.packages).filter(([path, pkg]) => path !== '' && forThisSystem(pkg));
const nameOf = (path: string): string => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);

/** Node 20 is on these machines (the oldest `engines.node` allows); users install 24, the current LTS (STACK.md). */
const NODES = ['20.20.2', '24.21.0'];

test('engines.node is >=20, and every locked package accepts Node 20 and Node 24', () => {
  assert.is(manifest.engines?.node, '>=20');
  const refusing = installed.flatMap(([path, pkg]) => {
    const range = pkg.engines?.node;
    return range === undefined
      ? []
      : NODES.filter((node) => !satisfies(node, range)).map((node) => `${nameOf(path)} (${range}) refuses ${node}`);
  });
  assert.equal(refusing, []);
});

test('every locked package with an install script is allowed or denied in allowScripts', () => {
  const withScripts = [
    ...new Set(installed.filter(([, pkg]) => pkg.hasInstallScript).map(([path]) => nameOf(path))),
  ].sort();
  assert.equal(withScripts, ['classic-level', 'core-js', 'esbuild', 'lmdb', 'msgpackr-extract', 'protobufjs']);
  assert.equal(
    withScripts.filter((name) => manifest.allowScripts?.[name] === undefined),
    [],
  );
  // core-js (irc-framework's) only prints a donation banner after install: denied, so npm warns of nothing.
  assert.equal(
    withScripts.filter((name) => manifest.allowScripts?.[name] === false),
    ['core-js'],
  );
});

test.run();
