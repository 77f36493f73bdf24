// tests/run.mjs on test files written for it: files run at the same time in separate workers, each file's output
// (stderr included) stands in one piece under its name, a worker that dies is named with its file, every process a
// test left behind is ended with its worker's process group, and the closing line counts what uvu counted.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { repoRoot } from '../support/cli.js';
import { eventually } from '../support/eventually.js';
import { alive } from '../support/process-alive.js';

/** Runs tests/run.mjs on the files in `dir` with `flags`: resolves with what it printed (stderr too) and its code. */
async function runRunner(
  dir: string,
  flags: string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ output: string; code: number | null }> {
  const runner = spawn(process.execPath, [join(repoRoot, 'tests', 'run.mjs'), '--dir', dir, ...flags], {
    cwd: repoRoot,
    env,
  });
  let output = '';
  runner.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  runner.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => runner.once('exit', resolve));
  return { output, code };
}

/** Two files that each wait for the other's mark: both pass only when they run at the same time. */
const meet = (mine: string, theirs: string) => `import { existsSync, writeFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
test('meets the other file', async () => {
  writeFileSync(new URL('../${mine}.mark', import.meta.url), '');
  const theirs = new URL('../${theirs}.mark', import.meta.url);
  const end = Date.now() + 30_000;
  while (!existsSync(theirs) && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
  assert.ok(existsSync(theirs), 'the other file ran at the same time');
});
test.run();
`;

const FILES: Record<string, string> = {
  'a/meet.test.ts': meet('a', 'b'),
  'b/meet.test.ts': meet('b', 'a'),
  'fails.test.ts': `import { test } from 'uvu';
import * as assert from 'uvu/assert';
test('passes', () => assert.is(1, 1));
test('fails', () => {
  console.error('said on stderr by the failing file');
  assert.is(1, 2, 'the failing assertion');
});
test.run();
`,
  'crashes.test.ts': `import { test } from 'uvu';
test('crashes', async () => {
  process.kill(process.pid, 'SIGSEGV');
  await new Promise(() => undefined);
});
test.run();
`,
  'throws.test.ts': `import { test } from 'uvu';
test('throws from a timer', async () => {
  setTimeout(() => {
    throw new Error('thrown where no test awaits it');
  }, 10);
  await new Promise(() => undefined);
});
test.run();
`,
  'orphan.test.ts': `import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { test } from 'uvu';
test('leaves a process running', () => {
  const child = spawn('sleep', ['300'], { stdio: 'ignore' });
  writeFileSync(new URL('./orphan.pid', import.meta.url), String(child.pid));
});
test.run();
`,
  'skips.test.ts': `import { test } from 'uvu';
test.skip('skipped', () => undefined);
test('runs', () => undefined);
test.run();
`,
};

/** The lines of `file`'s block in the runner's output: from its first line to the next file's. */
function block(output: string, file: string): string {
  const lines = output.split('\n');
  const start = lines.findIndex((line) => / {2}(\S+) {2}\(/.exec(line)?.[1] === file);
  if (start < 0) return '';
  const end = lines.findIndex((line, i) => i > start && /^(ok|FAIL) {2}\S/.test(line));
  return lines.slice(start, end < 0 ? undefined : end).join('\n');
}

test('files run in parallel workers; output, crashes, leftover processes and counts reported per file', async () => {
  const dir = join(repoRoot, 'tests', 'output', `runner-${process.pid}`);
  rmSync(dir, { recursive: true, force: true });
  for (const [file, source] of Object.entries(FILES)) {
    mkdirSync(join(dir, file, '..'), { recursive: true });
    writeFileSync(join(dir, file), source);
  }
  try {
    const { output, code } = await runRunner(dir, ['--workers', '2']);

    assert.is(output.trim().split('\n').at(-1), '5 passed, 3 failed, 1 skipped', output);
    assert.is(code, 1);
    assert.match(block(output, 'a/meet.test.ts'), /^ok {2}a\/meet\.test\.ts {2}\(1\/1 in /);
    assert.match(block(output, 'b/meet.test.ts'), /^ok {2}b\/meet\.test\.ts {2}\(1\/1 in /);
    const failed = block(output, 'fails.test.ts');
    assert.match(failed, /^FAIL {2}fails\.test\.ts {2}\(1\/2 in /);
    assert.ok(failed.includes('said on stderr by the failing file'), output);
    assert.ok(failed.includes('the failing assertion'), output);
    assert.match(block(output, 'crashes.test.ts'), /tests: the test process ended by SIGSEGV during this file/);
    // An uncaught exception ends the worker: the file fails with the error, the run goes on (no hang).
    const thrown = block(output, 'throws.test.ts');
    assert.match(thrown, /^FAIL {2}throws\.test\.ts {2}\(0\/0 in /);
    assert.ok(thrown.includes('Error: thrown where no test awaits it'), output);
    assert.match(thrown, /tests: the test process ended with exit code 1 during this file/);
    assert.match(output, /^failed: (\S+ )*throws\.test\.ts/m);
    assert.not.match(output, /undefined/, 'a file without costs is left out of the cost lists');
    assert.match(block(output, 'skips.test.ts'), /^ok {2}skips\.test\.ts {2}\(1\/2 in /);
    const orphan = Number(readFileSync(join(dir, 'orphan.pid'), 'utf8'));
    assert.is(await eventually(() => alive(orphan), false), false, 'the process the test left is ended with its group');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** What the runner looks for in a cluster file, written apart so that this file is not taken for one. */
const CLUSTER_SUPPORT = ['support', "cluster-gateways.js'"].join('/');

/**
 * A cluster file (the import the runner reads, as a comment) that waits for another cluster file to start, then counts
 * the cluster files running beside it.
 */
const cluster = (mine: string) => `// '../${CLUSTER_SUPPORT}' (read by the runner: a file of the cluster lane)
import { existsSync, writeFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
const mark = (name: string, what: string) => new URL(\`./\${name}.\${what}\`, import.meta.url);
const others = ['c1', 'c2', 'c3'].filter((name) => name !== '${mine}');
test('runs beside another cluster file, never beside two', async () => {
  writeFileSync(mark('${mine}', 'started'), '');
  const end = Date.now() + 30_000;
  while (!others.some((name) => existsSync(mark(name, 'started'))) && Date.now() < end) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const running = others.filter((name) => existsSync(mark(name, 'started')) && !existsSync(mark(name, 'done')));
  writeFileSync(mark('${mine}', 'done'), '');
  assert.ok(others.some((name) => existsSync(mark(name, 'started'))), 'another cluster file ran at the same time');
  assert.ok(running.length <= 1, \`at most two at once; beside: \${running.join(', ')}\`);
});
test.run();
`;

test('a worker with nothing left of its own takes heavy files, at most two of a kind at once', async () => {
  const dir = join(repoRoot, 'tests', 'output', `runner-heavy-${process.pid}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  for (const name of ['c1', 'c2', 'c3']) writeFileSync(join(dir, `${name}.test.ts`), cluster(name));
  try {
    const { output, code } = await runRunner(dir, ['--workers', '2']);
    assert.is(output.trim().split('\n').at(-1), '3 passed, 0 failed, 0 skipped', output);
    assert.is(code, 0);
    assert.match(output, /^busy: cluster \d files [\d.]+ s, worker 1 \d files [\d.]+ s, worker 2 \d files/m);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/**
 * A file that waits until `waits.test.ts` has started (its mark), so the worker running it cannot take that file:
 * `cluster` makes it a file of the cluster lane.
 */
const waitsForWaits = (
  cluster: boolean,
) => `${cluster ? `// '../${CLUSTER_SUPPORT}' (read by the runner)\n` : ''}import { existsSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
test('waits until waits.test.ts started', async () => {
  const started = new URL('./waits.started', import.meta.url);
  const end = Date.now() + 30_000;
  while (!existsSync(started) && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 10));
  assert.ok(existsSync(started));
});
test.run();
`;

test('a cluster file that mostly waited in its last run has a lane of its own', async () => {
  const dir = join(repoRoot, 'tests', 'output', `runner-waiting-${process.pid}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'light.test.ts'), waitsForWaits(false));
  writeFileSync(join(dir, 'busy.test.ts'), waitsForWaits(true));
  writeFileSync(
    join(dir, 'waits.test.ts'),
    `// '../${CLUSTER_SUPPORT}' (read by the runner)
import { writeFileSync } from 'node:fs';
import { test } from 'uvu';
test('starts', () => writeFileSync(new URL('./waits.started', import.meta.url), ''));
test.run();
`,
  );
  // 0.3 CPU-s in 30 s: a hundredth of a core.
  const timed = {
    'busy.test.ts': { s: 20, cpu: 19, own: 1, cli: 0 },
    'waits.test.ts': { s: 30, cpu: 0.3, own: 0.1, cli: 0 },
  };
  writeFileSync(join(dir, 'durations.json'), JSON.stringify(timed));
  try {
    const { output, code } = await runRunner(dir, ['--workers', '1']);
    assert.is(output.trim().split('\n').at(-1), '3 passed, 0 failed, 0 skipped', output);
    assert.is(code, 0);
    // The cluster lane and the light worker each start with a file of their own that waits for it: only a lane of its
    // own runs it (and takes the other files too when it is ready first).
    assert.match(output, /^busy: .*\bwaiting [1-3] files/m, output);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/**
 * A file that starts `tern` twice (once with each kind of spawn) and a child that spins for 0.6 s of CPU, and says what
 * it inherited of NODE_EXTRA_CA_CERTS.
 */
const COSTS = `import { spawn, spawnSync } from 'node:child_process';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
const root = ${JSON.stringify(repoRoot)};
// The run's bundle when there is one (a start from the sources compiles them first: three times the CPU).
const bin = process.env.TERN_TEST_BIN;
const tern = [...(bin ? [bin + '/main.js'] : ['--import', 'tsx', 'adapters/cli/main.ts']), '--version'];
test('starts tern twice and spends CPU in a child', async () => {
  assert.is(process.env.NODE_EXTRA_CA_CERTS, undefined, 'the tests start without the extra certificates');
  assert.match(spawnSync(process.execPath, tern, { cwd: root, encoding: 'utf8' }).stdout, /^tern \\d/);
  const child = spawn(process.execPath, tern, { cwd: root, stdio: 'ignore' });
  await new Promise((resolve) => child.once('exit', resolve));
  // User and system time: each check is a system call, so a loop watching user time alone spent seconds in the kernel.
  const spin = 'const cpu = () => { const { user, system } = process.cpuUsage(); return user + system; };' +
    ' const end = cpu() + 600000; while (cpu() < end);';
  assert.is(spawnSync(process.execPath, ['-e', spin]).status, 0);
});
test.run();
`;

test("each file's CPU (the tests' own and their processes') and its starts of tern are reported", async () => {
  const dir = join(repoRoot, 'tests', 'output', `runner-costs-${process.pid}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'costs.test.ts'), COSTS);
  try {
    // As on these machines: Node 20 parses the file it names at every start, a cost the tests need not pay.
    const env = { ...process.env, NODE_EXTRA_CA_CERTS: '/etc/ssl/certs/ca-certificates.crt' };
    const { output, code } = await runRunner(dir, [], env);
    assert.is(output.trim().split('\n').at(-1), '1 passed, 0 failed, 0 skipped', output);
    assert.is(code, 0);
    const line = /^ok {2}costs\.test\.ts {2}\(1\/1 in [\d.]+ s, ([\d.]+) CPU-s, ([\d.]+) in the tests\)$/m.exec(output);
    assert.ok(line, output);
    const [all, own] = [Number(line![1]), Number(line![2])];
    assert.ok(all - own >= 0.6, `the child's 0.6 s and the two starts of tern count as the file's: ${line![0]}`);
    assert.match(output, /^most CLI starts: costs\.test\.ts 2$/m);
    assert.match(output, /^CPU: [\d.]+ s in the files \([\d.]+ s in the tests' own code\); 2 starts of tern/m);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a file not timed yet starts first, then the others longest first', async () => {
  const dir = join(repoRoot, 'tests', 'output', `runner-order-${process.pid}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const passes = "import { test } from 'uvu';\ntest('runs', () => undefined);\ntest.run();\n";
  for (const name of ['long', 'new', 'short']) writeFileSync(join(dir, `${name}.test.ts`), passes);
  // As tests/durations.json records them; new.test.ts has never run.
  writeFileSync(join(dir, 'durations.json'), JSON.stringify({ 'long.test.ts': { s: 40 }, 'short.test.ts': { s: 1 } }));
  try {
    const { output, code } = await runRunner(dir, ['--workers', '1']);
    assert.is(code, 0, output);
    const order = [...output.matchAll(/^ok {2}(\S+)/gm)].map((match) => match[1]);
    assert.equal(order, ['new.test.ts', 'long.test.ts', 'short.test.ts'], output);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
