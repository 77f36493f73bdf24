// Running the bundled `tern` bin as a user does, for the benches that measure a real gateway process.
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { get } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Bundles `tern` into `outdir` as `npm run build` does (without touching dist/); returns the bin's path. */
export function bundleCli(outdir: string): string {
  rmSync(outdir, { recursive: true, force: true });
  const result = spawnSync(process.execPath, [join(root, 'adapters', 'cli', 'bundle.mjs'), outdir], {
    cwd: root,
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(`bundling the CLI failed: ${result.stderr}`);
  return join(outdir, 'main.js');
}

/**
 * The status of one `GET /ready` (0 while nothing listens); a fresh connection each time, as a supervisor would poll.
 */
function readyStatus(port: number): Promise<number> {
  return new Promise((resolve) => {
    const request = get({ host: '127.0.0.1', port, path: '/ready', agent: false }, (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    request.on('error', () => resolve(0));
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
