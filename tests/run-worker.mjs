// A test worker of tests/run.mjs: runs the uvu test files the runner sends it, one after another, in this process,
// so a file's imports are compiled once per worker rather than once per file. After each file it writes the end
// marker line the runner cuts its output at, with uvu's counts; the runner prints each file's output in one piece.
import { pathToFileURL } from 'node:url';

// uvu runs queued suites only when told (as its own CLI does) once this is set before it loads.
globalThis.UVU_DEFER = 1;
const uvu = await import('uvu');

const END_MARKER = '\u0000tern-test-file-end';

/** The kinds of handle open now that keep a process alive, timers left out (they end by themselves). */
const handles = () => process.getActiveResourcesInfo().filter((kind) => kind !== 'Timeout' && kind !== 'Immediate');

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
  const left = handles();
  for (const handle of before) if (left.includes(handle)) left.splice(left.indexOf(handle), 1);
  // On both streams: the runner cuts each at its marker, so what the file wrote to stderr stays with it.
  await write(`\n${END_MARKER}\n`, process.stderr);
  await write(`\n${END_MARKER} ${JSON.stringify({ file, loaded: !importError, left })}\n`);
});
process.send({ type: 'ready' });
