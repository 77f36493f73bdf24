// Runs every uvu suite under tests/ (not what the tests wrote into tests/output/) in one process and ends with the line `N passed, N failed, N skipped`,
// which uvu's own summary lacks. A suite that leaves a handle open would keep uvu alive after its summary,
// so the child is ended shortly after the summary appears and the leak is reported. uvu runs in its own
// process group, and the whole group is ended at the close, so no process a failed test started outlives
// the run (an orphan holding stdout would keep CI waiting).
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const pattern = process.argv[2] ?? '\\.test\\.ts$';
const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'node_modules/uvu/bin.js'), 'tests', pattern, '--ignore', '^output/'],
  // AGENT_CHECK_EVENTS: every event the runtime publishes is checked against its schema (bus/validate.ts).
  { cwd: root, stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1', AGENT_CHECK_EVENTS: '1' }, detached: true });
const endGroup = () => {
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // The group is already gone.
  }
};
process.on('SIGINT', () => {
  endGroup();
  process.exit(130);
});

let output = '';
let lingerTimer;
child.stdout.on('data', (chunk) => {
  process.stdout.write(chunk);
  output += chunk.toString();
  if (!lingerTimer && /Duration:/.test(output)) {
    lingerTimer = setTimeout(() => {
      process.stderr.write('tests: a suite left a handle open after the summary; ending the test process\n');
      endGroup();
    }, 5000);
  }
});
child.on('exit', (code, signal) => {
  clearTimeout(lingerTimer);
  endGroup();
  const summaryMissing = !/Total:/.test(output);
  // A process ended by a signal (a native crash, the OOM killer, a stray kill) or by a stray process.exit
  // writes nothing itself: say how it ended and in which suite.
  if (summaryMissing) {
    const suites = output.match(/^\S+\.test\.ts$/gm) ?? [];
    const how = signal ? `by ${signal}` : `with exit code ${code}`;
    console.log(`tests: the test process ended ${how} before its summary, during ${suites.at(-1) ?? 'its start'}`);
  }
  const count = (label) => Number(new RegExp(`${label}:\\s+(\\d+)`).exec(output)?.[1] ?? 0);
  const total = count('Total');
  const passed = count('Passed');
  const skipped = count('Skipped');
  // uvu counts a skipped test in Skipped only, not in Total.
  const failed = total - passed;
  console.log(`${passed} passed, ${summaryMissing ? Math.max(failed, 1) : failed} failed, ${skipped} skipped`);
  process.exit(failed > 0 || summaryMissing || (code !== 0 && code !== null) ? 1 : 0);
});
