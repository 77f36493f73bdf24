// Runs the uvu test files under tests/ (not what the tests wrote into tests/output/) in parallel worker processes
// and ends with the line `N passed, N failed, N skipped`, which uvu's own summary lacks.
//
//   node tests/run.mjs [PATTERN] [--workers N] [--lanes N] [--dir DIR] [--sources]
//
// PATTERN is a regexp over the paths under tests/. Files that start Chromium or nats-server (the heavy ones: a
// browser and a cluster of gateways each) run in their own lanes, one file at a time per lane (those that mostly wait
// in a third, `mostlyWaits`); the other files share
// a pool of workers (--workers, default: one more than the cores). A worker whose own queue is empty takes from the
// others, at most two heavy files of a kind at once, so no lane ends the run alone while workers wait. A worker
// runs its files one after another in one process (tests/run-worker.mjs) and each file's output is printed in one
// piece when it ends, so a failure's file and error stand together. A worker that dies (a native crash, the OOM
// killer, a stray process.exit) is reported with the file it was running and replaced. Each worker runs in its own
// process group, and every group is ended at the close, so no process a failed test started outlives the run (an
// orphan holding stdout would keep CI waiting).
//
// The tests start `tern` and `tern-launcher` as users do, from a bundle built once at the start of the run (as
// `npm run build` builds dist/, into `.test-bin-<pid>/` so runs side by side never share one): a process started
// from the sources compiles hundreds of modules first, three times the CPU of the bundle's start, and the suite
// starts well over a thousand of them. `--sources` starts them from the sources instead (tests/support/cli.ts).
import { spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { parseArgs } from 'node:util';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const runnerDir = join(root, 'tests');
const END_MARKER = '\u0000tern-test-file-end';
/**
 * A file still running after this long is taken as hung: it is ended with its worker and counted as failed. Far over
 * what the longest file takes (4 minutes on a 2-core machine shared with other full runs), so load never trips it.
 */
const FILE_LIMIT_MS = 900_000;
/** How long a worker may linger after its last file before a handle it keeps open is reported and it is ended. */
const LINGER_MS = 5_000;

const { values: flags, positionals } = parseArgs({
  allowPositionals: true,
  // --dir: another folder of test files (the runner's own test runs it on files it writes).
  options: {
    workers: { type: 'string' },
    lanes: { type: 'string' },
    dir: { type: 'string' },
    sources: { type: 'boolean' },
  },
});
const testsDir = flags.dir ? resolve(flags.dir) : runnerDir;
const pattern = new RegExp(positionals[0] ?? '\\.test\\.ts$');
// One worker more than the cores: files also wait for timers, child processes and servers, and with one worker a
// core the cores sat idle meanwhile; two more contend for the cores more than they fill them (docs/development.md).
const workerCount = Math.max(1, Number(flags.workers ?? availableParallelism() + 1));
const laneCount = Math.max(1, Number(flags.lanes ?? 2));

/** Every `*.test.ts` under tests/ whose path relative to tests/ matches the pattern, output/ left out. */
function testFiles(dir = testsDir) {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) => {
      const path = join(dir, entry.name);
      const file = relative(testsDir, path).split(sep).join('/');
      if (entry.isDirectory()) return file === 'output' || entry.name === 'node_modules' ? [] : testFiles(path);
      return entry.name.endsWith('.test.ts') && pattern.test(file) ? [file] : [];
    })
    .sort();
}

/** The heavy kind of a file (which lane it runs in), read from what it imports; undefined for the light ones. */
function heavyKind(file) {
  const source = readFileSync(join(testsDir, file), 'utf8');
  if (/support\/browser\.js'|from '\.\/browser-session\.js'|playwright-core/.test(source)) return 'browser';
  if (/support\/(nats-server|cluster-gateways)\.js'/.test(source)) return 'cluster';
  return undefined;
}

/**
 * What each file cost in a full run: the last one here (tests/output/durations.json), else the one committed
 * (tests/durations.json). Per file `s` is its wall seconds, `cpu` the CPU seconds of its worker and the processes it
 * started (`own`: the worker's share, the test code itself), `cli` how many times it started `tern` or `tern-launcher`
 * (see run-worker.mjs). Only the order depends on it: the longest files start first, so none starts near the end.
 */
function durations() {
  for (const path of [join(testsDir, 'output', 'durations.json'), join(testsDir, 'durations.json')]) {
    try {
      return JSON.parse(readFileSync(path, 'utf8'));
    } catch {
      // Not there (a fresh clone has no output/), or cut short: the next one.
    }
  }
  return {};
}

const files = testFiles();
const timed = durations();
const known = Object.fromEntries(
  Object.entries(timed).map(([file, entry]) => [file, typeof entry === 'number' ? entry : entry.s]),
);
// A file not timed yet (a new one) counts as longer than any timed one: a short one started early costs the run
// nothing, a long one started late (as an average one was, once the long ones had gone) is what the run waits for.
const longest = Math.max(0, ...Object.values(known));
const expected = (file) => known[file] ?? longest + 1;
/**
 * A heavy file that mostly waits (a NATS outage of 75 s, lease expiries: under a tenth of a core in its last run) has
 * a lane of its own. In its kind's lane it held the lane as long as it waited, and that lane ended the run.
 */
function mostlyWaits(file) {
  const entry = timed[file];
  return typeof entry === 'object' && entry.s >= 5 && entry.cpu / entry.s < 0.1;
}
/** The browser files, the cluster files, the heavy files that mostly wait, and the rest, each longest first. */
const queues = { browser: [], cluster: [], waiting: [], light: [] };
const kindOf = new Map(
  files.map((file) => {
    const kind = heavyKind(file);
    return [file, kind === undefined ? 'light' : mostlyWaits(file) ? 'waiting' : kind];
  }),
);
for (const file of [...files].sort((a, b) => expected(b) - expected(a))) queues[kindOf.get(file)].push(file);
/**
 * How many files of one heavy kind may run at once. Its lane runs one; a worker whose own queue is empty takes
 * another (the longest left), so a long heavy lane does not end the run alone while the light workers wait (and a
 * lane done early takes light files). Never more: two browsers or two clusters already share the cores with whatever
 * else runs.
 */
const HEAVY_AT_ONCE = 2;
/** The files running now, by kind. */
const running = { browser: 0, cluster: 0, waiting: 0, light: 0 };
// With one lane the two heavy kinds take turns in it; with two or more each kind has its own.
const lanes =
  laneCount === 1
    ? [{ name: 'heavy', queues: ['browser', 'cluster', 'waiting'] }]
    : [
        { name: 'browser', queues: ['browser'] },
        { name: 'cluster', queues: ['cluster'] },
        { name: 'waiting', queues: ['waiting'] },
      ];
const workers = [
  ...lanes,
  ...Array.from({ length: workerCount }, (_, i) => ({ name: `worker ${i + 1}`, queues: ['light'] })),
]
  .filter((worker) => {
    // A lane only when its kind has files (a run of light files keeps to --workers); a light worker for any file.
    const started = worker.queues.includes('light') ? Object.keys(queues) : worker.queues;
    return started.some((queue) => queues[queue].length > 0);
  })
  // No more workers than files: a worker's start (tsx, its imports) is wasted on an empty queue.
  .slice(0, files.length);

/** Where this run's bundle lives, at dist/'s depth: the bundle finds package.json, skills/ and web/ as dist/ does. */
const binRoot = join(root, `.test-bin-${process.pid}`);
const removeBin = () => rmSync(binRoot, { recursive: true, force: true });
/** Bundles of runs that ended without removing theirs (killed): their process is gone. */
function removeStaleBins() {
  for (const entry of readdirSync(root)) {
    const pid = /^\.test-bin-(\d+)$/.exec(entry)?.[1];
    if (pid === undefined) continue;
    try {
      process.kill(Number(pid), 0);
    } catch {
      rmSync(join(root, entry), { recursive: true, force: true });
    }
  }
}
async function buildBin() {
  removeStaleBins();
  const { bundle } = await import('../adapters/cli/bundle.mjs');
  await bundle(join(binRoot, 'adapters', 'cli'));
  symlinkSync(join(root, 'skills'), join(binRoot, 'skills'));
  return join(binRoot, 'adapters', 'cli');
}
const testBin = flags.sources || flags.dir || files.length === 0 ? undefined : await buildBin();

const totals = { passed: 0, failed: 0, skipped: 0 };
const failedFiles = [];
/** [file, wall ms, CPU seconds, CLI starts, the worker's own CPU seconds] of each file that ended. */
const timings = [];
const groups = new Set();
const started = Date.now();

const endGroup = (pid) => {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // The group is already gone.
  }
};
const endAll = () => {
  for (const pid of groups) endGroup(pid);
  if (testBin && existsSync(binRoot)) removeBin();
};
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    endAll();
    process.exit(130);
  });
}

const left = (queue) => queues[queue].reduce((sum, file) => sum + expected(file), 0);
const room = (queue) => queue === 'light' || queue === 'waiting' || running[queue] < HEAVY_AT_ONCE;
/**
 * The next file for a worker: from its own queues first (while its kind has room), then from the queue with the most
 * time left.
 */
const nextFile = (worker) => {
  const others = Object.keys(queues).filter((name) => !worker.queues.includes(name));
  const order = [...worker.queues, ...others.sort((a, b) => left(b) - left(a))];
  const queue = order.find((name) => queues[name].length > 0 && room(name));
  if (queue === undefined) return undefined;
  running[queue]++;
  return queues[queue].shift();
};

const count = (label, text) => Number(new RegExp(`^\\s*${label}:\\s+(\\d+)`, 'm').exec(text)?.[1] ?? 0);
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

/** Prints a finished file's output in one piece and adds its counts. */
function report(worker, file, output, ms, failure, costs = {}) {
  running[kindOf.get(file)]--;
  worker.files = (worker.files ?? 0) + 1;
  worker.busyMs = (worker.busyMs ?? 0) + ms;
  const hasSummary = /^\s*Total:/m.test(output);
  // uvu's summary of one file says what the first line here says, and its first line is the file's name.
  const body = output
    .replace(`${file}\n`, '')
    .replace(/^\s*(Total|Passed|Skipped|Duration):.*\n?/gm, '')
    .replace(/\n\s*\n(\s*\n)+/g, '\n\n')
    .trim();
  const total = count('Total', output);
  const passed = count('Passed', output);
  const skipped = count('Skipped', output);
  // uvu counts a skipped test in Skipped only, not in Total.
  const failed = Math.max(total - passed, failure || !hasSummary ? 1 : 0);
  totals.passed += passed;
  totals.failed += failed;
  totals.skipped += skipped;
  if (failed > 0) failedFiles.push(file);
  timings.push([file, ms, costs.cpu, costs.cliStarts, costs.own]);
  const cpu = costs.cpu === undefined ? '' : `, ${costs.cpu.toFixed(1)} CPU-s, ${costs.own.toFixed(1)} in the tests`;
  const lines = [`${failed > 0 ? 'FAIL' : 'ok'}  ${file}  (${passed}/${total + skipped} in ${seconds(ms)}${cpu})`];
  if (failed > 0 || body.split('\n').length > 1) lines.push(body.replace(/^/gm, '    '));
  if (failure) lines.push(`    tests: ${failure}`);
  process.stdout.write(`${lines.join('\n')}\n`);
}

/**
 * What the workers and every process they start inherit. Without NODE_EXTRA_CA_CERTS: Node 20 parses the file it
 * names at every start (a 220 KB bundle on these machines: ~60 ms of CPU, a thousand starts a run), and the tests
 * talk only to loopback servers; the few that need a certificate trusted name their own.
 */
const { NODE_EXTRA_CA_CERTS, ...workerEnv } = process.env;

/** Starts a worker process and feeds it files until its queues are empty; resolves when it has gone. */
function runWorker(worker) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(runnerDir, 'run-worker.mjs')], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      // AGENT_CHECK_EVENTS: every event the runtime publishes is checked against its schema (bus/validate.ts).
      env: {
        ...workerEnv,
        FORCE_COLOR: '0',
        NO_COLOR: '1',
        AGENT_CHECK_EVENTS: '1',
        ...(testBin ? { TERN_TEST_BIN: testBin } : {}),
      },
      detached: true,
    });
    groups.add(child.pid);
    const ranHere = [];
    const leftOpen = [];
    let current;
    let doneSent = false;
    let fileStarted = 0;
    let fileTimer;
    let lingerTimer;
    // The running file's output from both streams in the order it came; a stream past its end marker writes into
    // `early` (the next file's) until the other stream's marker came too.
    let output = '';
    let early = '';
    /** What the worker said at the end marker on stdout, and whether stderr's marker came. */
    let ended;
    let stderrEnded = false;

    const feed = () => {
      current = nextFile(worker);
      output = early;
      early = '';
      ended = undefined;
      stderrEnded = false;
      if (current === undefined) {
        doneSent = true;
        child.send({ type: 'done' });
        lingerTimer = setTimeout(() => {
          const suspects = leftOpen.length > 0 ? leftOpen.join(', ') : ranHere.join(' ');
          const said = `${worker.name} kept a handle open after its last file; ending it (open after: ${suspects})`;
          process.stdout.write(`tests: ${said}\n`);
          endGroup(child.pid);
        }, LINGER_MS);
        return;
      }
      ranHere.push(current);
      fileStarted = Date.now();
      fileTimer = setTimeout(() => {
        const late = `did not finish within ${seconds(FILE_LIMIT_MS)}; ending its worker`;
        report(worker, current, output, Date.now() - fileStarted, late);
        current = undefined;
        endGroup(child.pid);
      }, FILE_LIMIT_MS);
      child.send({ type: 'run', file: current, path: join(testsDir, current) });
    };
    const finishIfEnded = () => {
      if (!ended || !stderrEnded) return;
      clearTimeout(fileTimer);
      // Many files close servers and processes a moment after their last test: only a worker that then stays alive
      // names them (see lingerTimer).
      if (ended.left.length > 0) leftOpen.push(`${current} (${ended.left.join(', ')})`);
      const failure = ended.loaded ? undefined : 'the file did not load';
      report(worker, current, output, Date.now() - fileStarted, failure, ended);
      feed();
    };
    const reader = (onMarker) => {
      let pending = '';
      return (chunk) => {
        pending += chunk.toString();
        for (let at = pending.indexOf('\n'); at >= 0; at = pending.indexOf('\n')) {
          const line = pending.slice(0, at + 1);
          pending = pending.slice(at + 1);
          if (line.startsWith(END_MARKER)) onMarker(line.slice(END_MARKER.length).trim());
          else if (current === undefined) process.stderr.write(line);
          else if (onMarker.past()) early += line;
          else output += line;
        }
      };
    };
    const onStdoutMarker = (said) => {
      ended = JSON.parse(said);
      finishIfEnded();
    };
    onStdoutMarker.past = () => ended !== undefined;
    const onStderrMarker = () => {
      stderrEnded = true;
      finishIfEnded();
    };
    onStderrMarker.past = () => stderrEnded;
    child.stdout.on('data', reader(onStdoutMarker));
    child.stderr.on('data', reader(onStderrMarker));
    child.on('message', (message) => {
      if (message.type === 'ready') feed();
    });
    child.on('exit', (code, signal) => {
      clearTimeout(fileTimer);
      clearTimeout(lingerTimer);
      endGroup(child.pid);
      groups.delete(child.pid);
      if (current !== undefined) {
        // A worker ended by a signal or a stray process.exit writes nothing itself: say how it ended, and where.
        const how = signal ? `by ${signal}` : `with exit code ${code}`;
        report(worker, current, output, Date.now() - fileStarted, `the test process ended ${how} during this file`);
        current = undefined;
      }
      // The files left in its queues go to a new worker.
      resolve(doneSent ? undefined : runWorker(worker));
    });
  });
}

if (files.length === 0) console.log(`tests: no test file under tests/ matches ${pattern}`);
await Promise.all(workers.map(runWorker));
endAll();
// A full run (no pattern) records how long each file took, for the order of the next run.
if (positionals[0] === undefined && !flags.dir) {
  mkdirSync(join(testsDir, 'output'), { recursive: true });
  const sorted = [...timings].sort(([a], [b]) => a.localeCompare(b));
  // One line a file, so a diff of two runs reads file by file.
  const lines = sorted.map(
    ([file, ms, cpu, cli, own]) =>
      ` ${JSON.stringify(file)}: ${JSON.stringify({ s: Math.round(ms / 100) / 10, cpu, own, cli })}`,
  );
  writeFileSync(join(testsDir, 'output', 'durations.json'), `{\n${lines.join(',\n')}\n}\n`);
}
// A file whose worker died has no costs: it is left out of those lists (not printed as "undefined s").
const top = (index, say) =>
  timings
    .filter((timing) => timing[index] !== undefined)
    .sort((a, b) => (b[index] ?? 0) - (a[index] ?? 0))
    .slice(0, 8)
    .map(say)
    .join(', ');
if (timings.length > 0) {
  console.log(`\nslowest: ${top(1, ([file, ms]) => `${file} ${seconds(ms)}`)}`);
  console.log(`most CPU: ${top(2, ([file, , cpu]) => `${file} ${cpu} s`)}`);
  console.log(`most CLI starts: ${top(3, ([file, , , cli]) => `${file} ${cli}`)}`);
  const sum = (index) => timings.reduce((total, timing) => total + (timing[index] ?? 0), 0);
  const files = `${sum(2).toFixed(1)} s in the files (${sum(4).toFixed(1)} s in the tests' own code)`;
  console.log(`CPU: ${files}; ${sum(3)} starts of tern and tern-launcher`);
}
// Where the time went: a lane far busier than the others is what the run waited for at its end.
const busy = workers.map((worker) => `${worker.name} ${worker.files ?? 0} files ${seconds(worker.busyMs ?? 0)}`);
if (files.length > 1) console.log(`busy: ${busy.join(', ')}`);
console.log(`${files.length} files in ${seconds(Date.now() - started)} (${workers.length} workers)`);
if (failedFiles.length > 0) console.log(`failed: ${failedFiles.join(' ')}`);
console.log(`${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
process.exit(totals.failed > 0 ? 1 : 0);
