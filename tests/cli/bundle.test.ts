// The built `tern` (adapters/cli/bundle.mjs): esbuild's ES module chunks as esbuild writes them, with lmdb and the
// other native or worker-file packages loaded from node_modules.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { repoRoot } from '../support/cli.js';
import { startGatewayModel } from '../support/gateway-model.js';
import { modelEntry } from '../support/gateway-process.js';
import { weatherPlugin } from '../support/plugin-fixtures.js';
import { tempHome } from '../support/temp-home.js';
import { freePort, TelegramEmulator } from '../support/telegram-emulator.js';
import { writeConfig } from '../support/turn-fixture.js';

interface Context {
  root: string;
  bin: string;
}

const test = suite<Context>('built tern');
const { bin } = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { bin: Record<string, string> };

test.before((context) => {
  // A package of its own: the bundle beside a package.json, resolving external packages from the repo's node_modules.
  context.root = mkdtempSync(join(tmpdir(), 'tern-bundle-'));
  symlinkSync(join(repoRoot, 'node_modules'), join(context.root, 'node_modules'));
  const outdir = join(context.root, 'dist', 'adapters', 'cli');
  // Under tests/run.mjs the run's bundle is bundle.mjs' output already (its `bundle()`, built when the run started):
  // a copy of it spares a second esbuild run. A file run on its own bundles here.
  const runBundle = process.env.TERN_TEST_BIN;
  if (runBundle) cpSync(runBundle, outdir, { recursive: true });
  else {
    const built = spawnSync(process.execPath, [join(repoRoot, 'adapters', 'cli', 'bundle.mjs'), outdir], {
      cwd: repoRoot,
      encoding: 'utf8',
    });
    assert.is(built.status, 0, built.stderr);
  }
  context.bin = join(context.root, bin.tern ?? '');
});

test.after(({ root }) => rmSync(root, { recursive: true, force: true }));

test(
  'the bins of package.json are the ES modules the bundle writes, ' +
    'run by node with a fixed malloc trim threshold (`tern` with one V8 worker thread)',
  ({ root, bin: file }) => {
    assert.is(bin.tern, 'dist/adapters/cli/main.js');
    assert.is(
      readFileSync(file, 'utf8').split('\n')[0],
      '#!/usr/bin/env -S MALLOC_TRIM_THRESHOLD_=131072 node --v8-pool-size=1',
    );
    assert.is(bin['tern-launcher'], 'dist/adapters/cli/launcher-main.js');
    assert.is(
      readFileSync(join(root, bin['tern-launcher']), 'utf8').split('\n')[0],
      '#!/usr/bin/env -S MALLOC_TRIM_THRESHOLD_=131072 node',
    );
  },
);

test('the bundle holds no code that patches a dependency or loads code of its own', ({ root }) => {
  const dir = join(root, 'dist', 'adapters', 'cli');
  const text = readdirSync(dir)
    .filter((name) => name.endsWith('.js'))
    .map((name) => readFileSync(join(dir, name), 'utf8'))
    .join('\n');
  assert.equal(
    [/ternLocated|__ternImport|cachedData/.test(text), /\bvm\.Script\b|runInThisContext/.test(text)],
    [false, false],
  );
});

test('a chunk carries only the parts of the banner it uses: `require` where inlined CommonJS calls it', ({ root }) => {
  const dir = join(root, 'dist', 'adapters', 'cli');
  const requireLine =
    "import { createRequire as __ternCreateRequire } from 'node:module'; " +
    'const require = __ternCreateRequire(import.meta.url);';
  const chunks = readdirSync(dir)
    .filter((name) => name.endsWith('.js'))
    .map((name) => readFileSync(join(dir, name), 'utf8'));
  const carried = chunks.map((text) => {
    const body = text.replace(requireLine, '');
    return { needs: /\brequire\b/.test(body), carries: text.includes(requireLine) };
  });
  assert.equal(
    carried.filter((c) => c.needs !== c.carries),
    [],
  );
  // Most chunks are the project's own ES modules, which never call `require`.
  assert.ok(carried.filter((c) => c.carries).length < chunks.length / 4);
});

test('a gateway run by the built bin writes its event log, and the built `tern log` reads it back', async ({
  bin: file,
}) => {
  const home = tempHome();
  try {
    mkdirSync(home.home, { recursive: true });
    const port = await freePort();
    writeFileSync(
      join(home.home, 'config.json'),
      JSON.stringify({ version: 2, gateway: { port }, heartbeat: { enabled: false }, channel_list: {} }),
    );
    const child = spawn(process.execPath, [file, 'gateway'], { env: home.env, stdio: 'ignore' });
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    for (
      let i = 0;
      (await fetch(`http://127.0.0.1:${port}/ready`).then(
        (r) => r.status,
        () => 0,
      )) !== 200;
      i++
    ) {
      if (i > 400) throw new Error('the gateway never became ready');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    child.kill('SIGINT');
    assert.is(await exited, 0);

    const log = spawnSync(process.execPath, [file, 'log', '--json', '--type', 'gateway.*'], {
      env: home.env,
      encoding: 'utf8',
    });
    assert.is(log.status, 0, log.stderr);
    const events = log.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; data: Record<string, unknown> });
    assert.equal(
      events.map((e) => [e.type, e.data]),
      [
        ['gateway.started', { pid: child.pid, channels: [] }],
        ['gateway.stopping', { signal: 'signal' }],
      ],
    );
  } finally {
    home.remove();
  }
});

test(
  'a gateway run by the built bin connects Telegram ' + 'through the bundled Bot API client and answers a message',
  async ({ root, bin: file }) => {
    const token = '710001:bundle-token-AAAA';
    const home = tempHome();
    const model = await startGatewayModel();
    const emulator = await TelegramEmulator.start();
    let child: ChildProcess | undefined;
    try {
      mkdirSync(home.home, { recursive: true });
      const port = await freePort();
      const telegram = {
        enabled: true,
        type: 'telegram',
        settings: { token, base_url: emulator.url, poll_timeout_seconds: 1, allow_from: ['4242'] },
      };
      writeFileSync(
        join(home.home, 'config.json'),
        JSON.stringify({
          version: 2,
          gateway: { port },
          agents: { defaults: { model: 'fast' } },
          model_list: [modelEntry(model.url)],
          heartbeat: { enabled: false },
          channel_list: { tg: telegram },
        }),
      );
      const recorder = loadRecorder(root, 'telegram-gateway');
      const gateway = spawn(process.execPath, [...recorder.args, file, 'gateway'], { env: home.env, stdio: 'ignore' });
      child = gateway;
      const exited = new Promise<number | null>((resolve) => gateway.once('exit', resolve));
      let ready: unknown;
      for (let i = 0; ready === undefined; i++) {
        if (i > 400) throw new Error('the gateway never became ready');
        ready = await fetch(`http://127.0.0.1:${port}/ready`).then(
          (r) => (r.status === 200 ? r.json() : undefined),
          () => undefined,
        );
        if (ready === undefined) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.equal(ready, { status: 'ready', channels: [{ name: 'tg', state: 'connected' }] });
      // The Markdown parser of replies is no part of the start.
      const marked = (): boolean => recorder.read().some((path) => path.startsWith('marked/'));
      assert.is(marked(), false);

      await emulator.say(token, 'hello from the bundle', { userId: 4242 });
      const replies = await emulator.waitForBotMessages(token, 4242, 1, 15_000);
      assert.equal(
        replies.map((m) => m.text),
        ['echo: hello from the bundle'],
      );
      assert.is(marked(), true);
      gateway.kill('SIGINT');
      assert.is(await exited, 0);
    } finally {
      if (child?.exitCode === null) child.kill('SIGKILL');
      await emulator.stop();
      await model.close();
      home.remove();
    }
  },
);

/**
 * Node's module hooks, recording each ES module a process loads into `loaded-NAME.txt`: `args` go before the bin,
 * `read()` gives the bundle's as `dist/…` and a package's from node_modules as its path there.
 */
function loadRecorder(root: string, name: string): { args: string[]; read(): string[] } {
  const list = join(root, `loaded-${name}.txt`);
  const hooks = join(root, `record-loads-${name}.mjs`);
  const hook = [
    "import { appendFileSync } from 'node:fs';",
    'export async function load(url, context, next) {',
    `  appendFileSync(${JSON.stringify(list)}, url + '\\n');`,
    '  return next(url, context);',
    '}',
  ].join('\n');
  const source = `register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(hook)}));`;
  writeFileSync(hooks, `import { register } from 'node:module';\n${source}\n`);
  writeFileSync(list, '');
  const read = (): string[] =>
    readFileSync(list, 'utf8')
      .split('\n')
      .filter((url) => url.startsWith('file://'))
      .map((url) => {
        const path = fileURLToPath(url);
        if (path.startsWith(`${root}/`)) return path.slice(root.length + 1);
        return path.slice(path.lastIndexOf('/node_modules/') + '/node_modules/'.length);
      });
  return { args: ['--import', hooks], read };
}

/**
 * The ES modules `tern ARGS` loads. Run without blocking this process, which may serve the loopback model meanwhile.
 */
async function modulesLoaded(
  root: string,
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ status: number | null; output: string; loaded: string[] }> {
  const recorder = loadRecorder(root, args[0] ?? 'tern');
  const child = spawn(process.execPath, [...recorder.args, join(root, bin.tern ?? ''), ...args], { env });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const status = await new Promise<number | null>((resolve) => child.on('close', resolve));
  return { status, output, loaded: recorder.read() };
}

test('a command loads only what it runs: no config schema for `tern version`, no zip reader for a turn', async (c) => {
  const { root } = c;
  const home = tempHome();
  const model = await startGatewayModel();
  try {
    const version = await modulesLoaded(root, ['version'], home.env);
    assert.is(version.status, 0, version.output);
    const bytes = version.loaded.reduce((sum, path) => sum + statSync(join(root, path)).size, 0);
    // The bundle's own chunks only; the config schema (zod, yaml) alone is over 300 KB.
    const ownChunks = version.loaded.every((path) => path.startsWith('dist/'));
    assert.equal([ownChunks, bytes < 64 * 1024], [true, true], `${bytes} bytes`);

    writeConfig(home.home, model.url, { blocks: { heartbeat: { enabled: false } } });
    const turn = await modulesLoaded(root, ['agent', '-m', 'hi'], home.env);
    assert.equal([turn.status, turn.output], [0, 'echo: hi\n']);
    assert.equal(
      turn.loaded.filter((path) => !path.startsWith('dist/')),
      [],
    );
  } finally {
    await model.close();
    home.remove();
  }
});

test('`tern status` compiles no HTTP client and no YAML library: each comes with its first use', async ({ root }) => {
  const home = tempHome();
  try {
    writeConfig(home.home, 'http://127.0.0.1:9', { blocks: { heartbeat: { enabled: false } } });
    const status = await modulesLoaded(root, ['status'], home.env);
    assert.is(status.status, 0, status.output);
    const holding = (text: string): string[] =>
      status.loaded.filter((path) => readFileSync(join(root, path), 'utf8').includes(text));
    // Nor the YAML library: a config without a credentials file has no YAML to read.
    assert.equal([holding('llhttp'), holding('YAMLParseError')], [[], []]);
  } finally {
    home.remove();
  }
});

test('a gateway is ready without loading its log compaction, which comes when a compaction is due', async ({
  root,
  bin: file,
}) => {
  const home = tempHome();
  try {
    const port = await freePort();
    writeFileSync(
      join(home.home, 'config.json'),
      JSON.stringify({ version: 2, gateway: { port }, heartbeat: { enabled: false }, channel_list: {} }),
    );
    const recorder = loadRecorder(root, 'gateway');
    const child = spawn(process.execPath, [...recorder.args, file, 'gateway'], { env: home.env, stdio: 'ignore' });
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    let ready = 0;
    for (let i = 0; ready !== 200 && i < 600; i++) {
      ready = await fetch(`http://127.0.0.1:${port}/ready`).then(
        (r) => r.status,
        () => 0,
      );
      if (ready !== 200) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    child.kill('SIGINT');
    // The bundle's own files only: a package the bundle leaves in node_modules (`level`, which the gateway may import
    // by the time the list is read) is named by its path there, which is not under the bundle.
    const compaction = recorder
      .read()
      .filter((path) => existsSync(join(root, path)))
      .filter((path) => /\bArchiveWriter\s*=\s*class\b/.test(readFileSync(join(root, path), 'utf8')));
    assert.equal([ready, await exited, compaction], [200, 0, []]);
  } finally {
    home.remove();
  }
});

/**
 * The bundle's files `file` imports statically (`import … from "./x.js"`, `import "./x.js"`), with theirs and itself.
 */
function staticImports(dir: string, file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file)) return seen;
  seen.add(file);
  for (const [, next] of readFileSync(join(dir, file), 'utf8').matchAll(/(?:\bfrom|\bimport)\s*"\.\/([\w-]+\.js)"/g))
    staticImports(dir, next ?? '', seen);
  return seen;
}

test('`tern gateway` compiles no croner at start: cron loads its store after the channels have reported', ({
  root,
}) => {
  const dir = join(root, 'dist', 'adapters', 'cli');
  const files = readdirSync(dir).filter((file) => file.endsWith('.js'));
  const holding = (text: string) => files.filter((file) => readFileSync(join(dir, file), 'utf8').includes(text));
  // The command's own chunk, which the command table imports when `tern gateway` runs.
  const [command] = holding('Ctrl-C stops it.');
  const loaded = [...staticImports(dir, command ?? '')];
  const croner = holding('CronPattern');
  assert.equal([croner.length, loaded.filter((file) => croner.includes(file))], [1, []]);
});

test('a turn handed to a running gateway loads the socket client only: no runtime, no HTTP client', async (c) => {
  const { root } = c;
  const home = tempHome();
  const model = await startGatewayModel();
  const port = await freePort();
  writeConfig(home.home, model.url, { blocks: { gateway: { port }, heartbeat: { enabled: false } } });
  const gateway = spawn(process.execPath, [c.bin, 'gateway'], { env: home.env, stdio: 'ignore' });
  const exited = new Promise<number | null>((resolve) => gateway.once('exit', resolve));
  try {
    // The control socket is bound once the gateway's runtime has started.
    for (let i = 0; !existsSync(join(home.home, 'gateway.sock')); i++) {
      if (i > 400) throw new Error('the gateway served no control socket');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const turn = await modulesLoaded(root, ['agent', '-m', 'hi'], home.env);
    assert.equal([turn.status, turn.output], [0, 'echo: hi\n']);
    const bytes = turn.loaded.reduce((sum, path) => sum + statSync(join(root, path)).size, 0);
    // The runtime (turn machines, tools, config schema, undici) is over 1.5 MB; the client is the protocol and zod.
    const ownChunks = turn.loaded.every((path) => path.startsWith('dist/'));
    assert.equal([ownChunks, bytes < 320 * 1024], [true, true], `${bytes} bytes`);
  } finally {
    gateway.kill('SIGINT');
    await exited;
    await model.close();
    home.remove();
  }
});

test('the built bin loads a trusted plugin in its own process (an import() of a path known only at run time)', ({
  bin: file,
}) => {
  const home = tempHome();
  try {
    weatherPlugin(join(home.home, 'plugins', 'node_modules', 'weather'));
    writeFileSync(
      join(home.home, 'config.json'),
      JSON.stringify({ version: 2, plugins: { entries: { weather: { trusted: true, config: { unit: 'C' } } } } }),
    );
    const path = join(home.home, 'plugins', 'node_modules', 'weather');
    for (const run of ['first', 'cached']) {
      const listed = spawnSync(process.execPath, [file, 'plugins', 'list'], { env: home.env, encoding: 'utf8' });
      assert.equal([listed.status, listed.stdout, listed.stderr], [0, `weather 1.2.0: ready — ${path}\n`, ''], run);
    }
  } finally {
    home.remove();
  }
});

test.run();
