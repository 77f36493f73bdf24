// The built `tern` (adapters/cli/bundle.mjs) keeps V8's compiled code between runs: one cache file per command.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { packParts } from '../../adapters/cli/cached-parts.js';
import { repoRoot } from '../support/cli.js';
import { tempHome } from '../support/temp-home.js';
import { freePort } from '../support/telegram-emulator.js';

interface Context {
  root: string;
  bin: string;
  cacheDir: string;
  userTmp: string;
}

const test = suite<Context>('tern code cache');
const { version } = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string };
const CACHE_NAME = /^version-[0-9a-f]{16}-v\d+\.\d+\.\d+-\d+\.bin$/;

test.before((context) => {
  // A package of its own: the bundle beside a package.json, resolving external packages from the repo's node_modules.
  context.root = mkdtempSync(join(tmpdir(), 'tern-bundle-'));
  symlinkSync(join(repoRoot, 'node_modules'), join(context.root, 'node_modules'));
  writeFileSync(join(context.root, 'package.json'), readFileSync(join(repoRoot, 'package.json')));
  const outdir = join(context.root, 'dist', 'adapters', 'cli');
  const built = spawnSync(process.execPath, [join(repoRoot, 'adapters', 'cli', 'bundle.mjs'), outdir], { cwd: repoRoot, encoding: 'utf8' });
  assert.is(built.status, 0, built.stderr);
  context.bin = join(outdir, 'main.cjs');
  context.cacheDir = join(outdir, '.cache');
});

test.after(({ root }) => rmSync(root, { recursive: true, force: true }));

test.before.each((context) => {
  rmSync(context.cacheDir, { recursive: true, force: true });
  context.userTmp = join(context.root, `tmp-${Math.random().toString(36).slice(2)}`);
  mkdirSync(context.userTmp);
});

function tern(context: Context, args: string[]): { code: number | null; stdout: string } {
  const result = spawnSync(process.execPath, [context.bin, ...args], { env: { ...process.env, TMPDIR: context.userTmp }, encoding: 'utf8' });
  return { code: result.status, stdout: result.stdout };
}

function cacheFiles(dir: string): string[] {
  return existsSync(dir) ? readdirSync(dir).sort() : [];
}

function userCacheDir(context: Context): string {
  return join(context.userTmp, `tern-code-cache-${process.getuid?.() ?? 'user'}`);
}

test('a command writes its cache beside the bundle at its first successful run and reuses it as it is', (context) => {
  assert.equal(tern(context, ['version']), { code: 0, stdout: `tern ${version}\n` });
  const [name] = cacheFiles(context.cacheDir);
  assert.ok(name !== undefined && CACHE_NAME.test(name), `cache file: ${name}`);
  assert.equal(cacheFiles(context.cacheDir), [name]);
  const file = join(context.cacheDir, name!);
  const first = { ino: statSync(file).ino, bytes: readFileSync(file) };

  assert.equal(tern(context, ['version']), { code: 0, stdout: `tern ${version}\n` });
  assert.is(statSync(file).ino, first.ino);
  assert.ok(readFileSync(file).equals(first.bytes));
});

test('each command has its own cache', (context) => {
  assert.is(tern(context, ['version']).code, 0);
  assert.is(tern(context, ['--help']).code, 0);
  assert.equal(
    cacheFiles(context.cacheDir).map((name) => name.split('-')[0]),
    ['tern', 'version'],
  );
});

test('a failed command writes no cache', (context) => {
  assert.is(tern(context, ['no-such-command']).code, 2);
  assert.equal(cacheFiles(context.cacheDir), []);
  assert.equal(cacheFiles(userCacheDir(context)), []);
});

test('a cache file that is not one is ignored and replaced', (context) => {
  assert.is(tern(context, ['version']).code, 0);
  const [name] = cacheFiles(context.cacheDir);
  const file = join(context.cacheDir, name!);
  writeFileSync(file, 'not a cache');

  assert.equal(tern(context, ['version']), { code: 0, stdout: `tern ${version}\n` });
  assert.ok(statSync(file).size > 'not a cache'.length);
});

test('cached data V8 rejects is ignored and replaced', (context) => {
  assert.is(tern(context, ['version']).code, 0);
  const [name] = cacheFiles(context.cacheDir);
  const file = join(context.cacheDir, name!);
  const rejected = packParts(new Map([['tern.cjs', Buffer.alloc(256, 7)]]));
  writeFileSync(file, rejected);

  assert.equal(tern(context, ['version']), { code: 0, stdout: `tern ${version}\n` });
  assert.not.ok(readFileSync(file).equals(rejected));
});

test('where the bundle folder takes no cache, a private folder of the user under the temp dir does', (context) => {
  writeFileSync(context.cacheDir, 'a file where the cache folder would be');

  assert.equal(tern(context, ['version']), { code: 0, stdout: `tern ${version}\n` });
  const dir = userCacheDir(context);
  const [name] = cacheFiles(dir);
  assert.ok(name !== undefined && CACHE_NAME.test(name), `cache file: ${name}`);
  assert.is(statSync(dir).mode & 0o777, 0o700);
  const ino = statSync(join(dir, name!)).ino;

  assert.equal(tern(context, ['version']), { code: 0, stdout: `tern ${version}\n` });
  assert.is(statSync(join(dir, name!)).ino, ino);
});

test('a temp folder others can write to is neither read nor written', (context) => {
  writeFileSync(context.cacheDir, 'a file where the cache folder would be');
  const dir = userCacheDir(context);
  mkdirSync(dir);
  chmodSync(dir, 0o777);

  assert.equal(tern(context, ['version']), { code: 0, stdout: `tern ${version}\n` });
  assert.equal(cacheFiles(dir), []);
});

async function untilExists(dir: string, prefix: string): Promise<string> {
  for (let i = 0; i < 400; i++) {
    const found = cacheFiles(dir).find((name) => name.startsWith(prefix) && name.endsWith('.bin'));
    if (found) return found;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no ${prefix} cache in ${dir}`);
}

async function runGateway(context: Context, whileRunning: () => Promise<void>): Promise<number | null> {
  const home = tempHome();
  mkdirSync(home.home, { recursive: true });
  const port = await freePort();
  writeFileSync(join(home.home, 'config.json'), JSON.stringify({ version: 2, gateway: { port }, heartbeat: { enabled: false }, channel_list: {} }));
  const child = spawn(process.execPath, [context.bin, 'gateway'], { env: { ...home.env, TMPDIR: context.userTmp }, stdio: 'ignore' });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  try {
    for (let i = 0; (await fetch(`http://127.0.0.1:${port}/ready`).then((r) => r.status, () => 0)) !== 200; i++) {
      if (i > 400) throw new Error('the gateway never became ready');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await whileRunning();
  } finally {
    child.kill('SIGINT');
    await exited;
    home.remove();
  }
  return exited;
}

test('tern gateway writes its cache while it runs, once started, and the next start uses it as it is', async (context) => {
  let ino = 0;
  assert.is(
    await runGateway(context, async () => {
      ino = statSync(join(context.cacheDir, await untilExists(context.cacheDir, 'gateway-'))).ino;
    }),
    0,
  );
  const [name] = cacheFiles(context.cacheDir);
  assert.is(statSync(join(context.cacheDir, name!)).ino, ino);

  assert.is(await runGateway(context, async () => {}), 0);
  assert.equal(cacheFiles(context.cacheDir), [name]);
  assert.is(statSync(join(context.cacheDir, name!)).ino, ino);
});

test.run();
