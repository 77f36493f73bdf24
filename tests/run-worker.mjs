// A test worker of tests/run.mjs: runs the uvu test files the runner sends it, one after another, in this process,
// so a file's imports are compiled once per worker rather than once per file. After each file it writes the end
// marker line the runner cuts its output at, with uvu's counts; the runner prints each file's output in one piece.
import childProcess from 'node:child_process';
import { readFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { pathToFileURL } from 'node:url';

// uvu runs queued suites only when told (as its own CLI does) once this is set before it loads.
globalThis.UVU_DEFER = 1;
const uvu = await import('uvu');

const END_MARKER = '\u0000tern-test-file-end';

/** The kinds of handle open now that keep a process alive, timers left out (they end by themselves). */
const handles = () => process.getActiveResourcesInfo().filter((kind) => kind !== 'Timeout' && kind !== 'Immediate');

/**
 * CPU seconds (user and system) of this process (`own`) and of the children it has reaped (`children`): what a file
 * cost, the processes it started included (those end before it does). Linux's /proc/self/stat counts in 1/100 s;
 * undefined elsewhere.
 */
function cpuSeconds() {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    // After the command's name (in parentheses, which may hold spaces): state, then utime is the 12th field on.
    const [utime, stime, cutime, cstime] = stat
      .slice(stat.lastIndexOf(')') + 2)
      .split(' ')
      .slice(11, 15)
      .map((ticks) => Number(ticks) / 100);
    return { own: utime + stime, children: cutime + cstime };
  } catch {
    return undefined;
  }
}

/**
 * How many times the file started `tern` or `tern-launcher` (the bundle's entries, or the sources' with --sources):
 * a start costs a Node start and the CLI's imports, the suite's largest cost. Counted where every process starts, so
 * no helper that spawns one is missed.
 */
let cliStarts = 0;
const CLI_ENTRY = /adapters\/cli\/(main|launcher-main)\.(js|ts)\b/;
for (const name of ['spawn', 'spawnSync', 'execFile', 'execFileSync']) {
  const original = childProcess[name];
  childProcess[name] = function counted(command, args, ...rest) {
    if (Array.isArray(args) && args.some((arg) => typeof arg === 'string' && CLI_ENTRY.test(arg))) cliStarts++;
    return original.call(this, command, args, ...rest);
  };
}
// The test files import `spawn` and the rest as ES named exports: these now point at the counting ones.
syncBuiltinESMExports();

/** Writes `text` and resolves once the stream took it, so the marker follows everything the file printed. */
const write = (text, stream = process.stdout) => new Promise((resolve) => stream.write(text, resolve));

process.on('message', async (message) => {
  if (message.type === 'done') {
    // Nothing is left to run: a handle a test left open keeps this process alive, which the runner reports.
    process.disconnect();
    return;
  }
  const { file, path } = message;
  const before = handles();
  const cpuBefore = cpuSeconds();
  cliStarts = 0;
  globalThis.UVU_QUEUE.splice(0, globalThis.UVU_QUEUE.length, [file]);
  globalThis.UVU_INDEX = 0;
  let importError;
  try {
    await import(pathToFileURL(path).href);
  } catch (error) {
    importError = error;
  }
  if (importError) await write(`\n  FAIL  the file did not load: ${importError?.stack ?? importError}\n`);
  else await uvu.exec();
  process.exitCode = 0;
  await new Promise((resolve) => setImmediate(resolve));
  const cpuAfter = cpuSeconds();
  const spent = (key) => (cpuBefore ? Math.round((cpuAfter[key] - cpuBefore[key]) * 100) / 100 : undefined);
  const own = spent('own');
  const cpu = cpuBefore ? Math.round((own + spent('children')) * 100) / 100 : undefined;
  const left = handles();
  for (const handle of before) if (left.includes(handle)) left.splice(left.indexOf(handle), 1);
  // On both streams: the runner cuts each at its marker, so what the file wrote to stderr stays with it.
  await write(`\n${END_MARKER}\n`, process.stderr);
  await write(`\n${END_MARKER} ${JSON.stringify({ file, loaded: !importError, left, cpu, own, cliStarts })}\n`);
});
process.send({ type: 'ready' });
