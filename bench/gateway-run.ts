// Running the bundled `tern` bin as a user does, for the benches that measure a real gateway process.
import { spawnSync } from 'node:child_process';
import { chmodSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Bundles `tern` into `outdir` as `npm run build` does (without touching dist/); returns the bin's path. */
export function bundleCli(outdir: string): string {
  const bundle = join(outdir, 'main.cjs');
  rmSync(outdir, { recursive: true, force: true });
  const result = spawnSync(process.execPath, [join(root, 'adapters', 'cli', 'bundle.mjs'), outdir], { cwd: root, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`bundling the CLI failed: ${result.stderr}`);
  chmodSync(bundle, 0o755);
  return bundle;
}

/**
 * The status of one `GET /ready` (0 while nothing listens), on a raw socket: polled every 2 ms by the bench's own
 * process on a 2-core machine, `fetch()` cost the parent about twice the CPU, taken from the starting child and
 * from the Telegram emulator it talks to (interleaved starts, medians to ready: 15 + 15 at load 3.3–3.7, 634 → 527 ms;
 * 11 + 11 at load ~11, 1372 → 1154 ms, and express 1135 → 719 ms). The gateway and the express floor are polled the
 * same way, so they stay comparable.
 */
function readyStatus(port: number): Promise<number> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let head = '';
    const settle = (status: number): void => {
      socket.destroy();
      resolve(status);
    };
    socket.once('error', () => settle(0));
    socket.once('end', () => settle(0));
    socket.once('connect', () => socket.write('GET /ready HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n'));
    socket.on('data', (chunk: Buffer) => {
      head += chunk.toString('latin1');
      const lineEnd = head.indexOf('\r\n');
      if (lineEnd >= 0) settle(Number(/^HTTP\/1\.[01] (\d{3}) /.exec(head.slice(0, lineEnd))?.[1] ?? 0));
    });
  });
}

/** Until the first 200 from `/ready`, asked every 2 ms. */
export async function untilReady(port: number, started: number, what: string): Promise<number> {
  while ((await readyStatus(port)) !== 200) {
    if (performance.now() - started > 20_000) throw new Error(`${what} was not ready within 20 s`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  return performance.now() - started;
}

/** The resident memory of a process (Linux), MB. */
export function rssMb(pid: number): number {
  const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
  return kb / 1024;
}
