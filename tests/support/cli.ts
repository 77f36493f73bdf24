import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
/** The bundle tests/run.mjs built for this run; unset when a test file runs on its own or with `--sources`. */
const bin = process.env.TERN_TEST_BIN;
/** Node's arguments that start `tern`: the run's bundle, else the sources. */
export const ternEntry: readonly string[] = bin ? [join(bin, 'main.js')] : ['--import', 'tsx', 'adapters/cli/main.ts'];
/** The same for `tern-launcher`. */
export const launcherEntry: readonly string[] = bin
  ? [join(bin, 'launcher-main.js')]
  : ['--import', 'tsx', 'adapters/cli/launcher-main.ts'];
const entry = ternEntry;

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `tern …` as a user would and waits for it to end. */
export function runCli(args: string[], env: NodeJS.ProcessEnv, input?: string): CliResult {
  const result = spawnSync(process.execPath, [...entry, ...args], {
    cwd: repoRoot,
    env,
    input,
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/**
 * Runs `tern …` without blocking this process (which may serve a loopback model meanwhile) and resolves when it ends.
 */
export function runCliAsync(args: string[], env: NodeJS.ProcessEnv): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...entry, ...args], { cwd: repoRoot, env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    // `close`, not `exit`: the output may still be arriving when the process has exited.
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Starts `tern …` and leaves it running (for --follow and servers), with Node's own `nodeFlags` if given. */
export function startCli(
  args: string[],
  env: NodeJS.ProcessEnv,
  nodeFlags: readonly string[] = [],
): ChildProcessWithoutNullStreams {
  return spawn(process.execPath, [...nodeFlags, ...entry, ...args], { cwd: repoRoot, env });
}

/** Reads a running command's stdout line by line: `next(n)` resolves with the next n lines. */
export function lineReader(
  child: ChildProcessWithoutNullStreams,
  timeoutMs = 20_000,
): { next(count: number): Promise<string[]> } {
  const lines: string[] = [];
  let partial = '';
  let waiter: (() => void) | undefined;
  child.stdout.on('data', (chunk: Buffer) => {
    const parts = (partial + chunk.toString()).split('\n');
    partial = parts.pop() ?? '';
    lines.push(...parts.filter(Boolean));
    waiter?.();
  });
  return {
    next: (count) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`timed out waiting for ${count} lines; have: ${lines.join(' | ')}`)),
          timeoutMs,
        );
        waiter = () => {
          if (lines.length < count) return;
          clearTimeout(timer);
          waiter = undefined;
          resolve(lines.splice(0, count));
        };
        waiter();
      }),
  };
}
