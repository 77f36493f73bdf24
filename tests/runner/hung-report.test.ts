// hungReport, what the gateway tests print for a gateway that will not stop: the handles that keep it alive, from
// the diagnostic report Node writes on SIGUSR2.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startGatewayProcess } from '../support/gateway-process.js';
import { hungReport, reportFlags } from '../support/hung-report.js';
import { freePort } from '../support/telegram-emulator.js';

/** A process that ignores SIGINT and is kept alive by a listening socket; it says `up` once it listens. */
const HOLDER = `
  process.on('SIGINT', () => {});
  require('node:net').createServer().listen(0, '127.0.0.1', () => console.log('up'));
`;

/** Runs `script` from a file: Node answers SIGUSR2 with a report for a script it runs, not for `-e`. */
async function started(dir: string, script: string): Promise<ChildProcess> {
  const file = join(dir, 'holder.cjs');
  writeFileSync(file, script);
  const child = spawn(process.execPath, [...reportFlags(dir), file], { stdio: ['ignore', 'pipe', 'pipe'] });
  await new Promise<void>((resolve, reject) => {
    child.stdout!.once('data', () => resolve());
    child.once('exit', (code) => reject(new Error(`the holder ended (${code}) before it listened`)));
  });
  return child;
}

test('a process that will not end is described by the handles that keep it alive', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tern-hung-'));
  const child = await started(dir, HOLDER);
  try {
    child.kill('SIGINT');
    const said = await hungReport(child, dir);
    const [handles, stack] = said.split('\n');
    // The listening socket alone: the report's stdio pipes and signal handlers do not hold the loop.
    assert.match(handles!, /^handles keeping it alive: tcp \{"localEndpoint":\{[^}]*"ip4":"127\.0\.0\.1","port":\d+\}/);
    assert.not.match(handles!, /; /);
    assert.is(stack, 'JavaScript stack: none (idle)');
  } finally {
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a process whose event loop is blocked is said to be, since it cannot write its report', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tern-hung-'));
  // Blocked without spinning, so the wait costs no CPU.
  const child = await started(dir, `console.log('up'); Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);`);
  try {
    assert.is(
      await hungReport(child, dir, 1_000),
      'no diagnostic report within 1000 ms of SIGUSR2: its event loop was blocked, or it ended',
    );
  } finally {
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
});

test("the tests' gateways can be asked: a running one names its HTTP server among what keeps it alive", async () => {
  const port = await freePort();
  const gateway = await startGatewayProcess({ gateway: { host: '127.0.0.1', port }, heartbeat: { enabled: false } });
  try {
    const [handles] = (await gateway.holding()).split('\n');
    assert.match(handles!, new RegExp(`tcp \\{"localEndpoint":\\{[^}]*"ip4":"127\\.0\\.0\\.1","port":${port}\\}`));
  } finally {
    await gateway.stop();
    gateway.home.remove();
  }
});

test.run();
