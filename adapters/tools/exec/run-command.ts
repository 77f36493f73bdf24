import { spawn, type ChildProcess } from 'node:child_process';
import { sealedStdio } from './inherited-descriptors.js';
import { hearPipeErrors } from './pipe-errors.js';
import { killMarked } from './process-tree.js';

export type CommandOutcome =
  | { kind: 'exited'; code: number; output: string; truncated: boolean }
  | { kind: 'timed_out'; output: string; truncated: boolean }
  | { kind: 'aborted'; output: string; truncated: boolean };

/**
 * How one command line starts: the program and its arguments (`sh -c …`, or bubblewrap around it), its
 * environment and folder, and how the processes it leaves are found: a PID namespace ends them all with
 * its first process; without one they carry `marker` in their environment.
 */
export type Launch = {
  argv: [string, ...string[]];
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Pipes the program gets from descriptor 3 up (bubblewrap's seccomp program, info and block pipes). */
  pipes?: number;
  /**
   * Runs once the program started, with those pipes: sets up what the command waits for (its network, its
   * cgroup). A failure ends the command and is the call's error.
   */
  setUp?: (child: ChildProcess) => Promise<void>;
  /** Runs once the command's first process is gone and its output drained; the call returns when it resolves. */
  tearDown?: () => Promise<void>;
} & ({ contained: true } | { contained: false; marker: string });

/** How long output may still arrive once the command's processes are gone, before the pipes are closed. */
const DRAIN_MS = 250;

/** Keeps the first `limit` bytes of everything written, and knows whether more came. */
class Capture {
  private chunks: Buffer[] = [];
  private size = 0;
  truncated = false;

  constructor(private readonly limit: number) {}

  push(chunk: Buffer): void {
    const room = this.limit - this.size;
    if (chunk.length > room) this.truncated = true;
    if (room <= 0) return;
    const kept = chunk.subarray(0, room);
    this.chunks.push(kept);
    this.size += kept.length;
  }

  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}

/**
 * Runs a command in its own process group. When the command's first process exits, at the time limit and on
 * an abort, everything it started ends too (the group, the PID namespace, or every marked process), and the
 * call returns with the output so far: a child that detached (`setsid sleep 25 &`) holds neither the call nor
 * the machine.
 */
export function runCommand(
  launch: Launch,
  timeoutMs: number,
  maxBytes: number,
  signal: AbortSignal,
): Promise<CommandOutcome> {
  return new Promise((resolve, reject) => {
    const [program, ...args] = launch.argv;
    // Nothing of this process but stdout and stderr reaches the command (lmdb's handle on the log would).
    const stdio = sealedStdio(['ignore', 'pipe', 'pipe', ...Array<'pipe'>(launch.pipes ?? 0).fill('pipe')]);
    const child = spawn(program, args, { cwd: launch.cwd, env: launch.env, detached: true, stdio });
    hearPipeErrors(child);
    const capture = new Capture(maxBytes);
    let ending: 'timed_out' | 'aborted' | undefined;
    let exitCode: number | null = null;
    let drain: ReturnType<typeof setTimeout> | undefined;
    let settled = false;
    let setUpFailure: Error | undefined;

    const endTree = (): void => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
      if (!launch.contained) killMarked(launch.marker);
    };
    const cleanUp = (): Promise<void> => {
      clearTimeout(timer);
      clearTimeout(drain);
      signal.removeEventListener('abort', onAbort);
      return launch.tearDown?.() ?? Promise.resolve();
    };
    const finish = (): void => {
      if (settled) return;
      settled = true;
      const tornDown = cleanUp();
      // A child still forking or exec'ing at the first sweep (a loaded machine) is marked by now: sweep again.
      if (!launch.contained) killMarked(launch.marker);
      child.stdout!.destroy();
      child.stderr!.destroy();
      const failure = setUpFailure;
      const base = { output: capture.text(), truncated: capture.truncated };
      void tornDown.then(() => {
        if (failure) reject(failure);
        else resolve(ending ? { kind: ending, ...base } : { kind: 'exited', code: exitCode ?? 1, ...base });
      });
    };
    const drainThenFinish = (): void => {
      drain ??= setTimeout(finish, DRAIN_MS);
    };
    const stop = (why: 'timed_out' | 'aborted'): void => {
      ending ??= why;
      endTree();
      drainThenFinish();
    };

    const timer = setTimeout(() => stop('timed_out'), timeoutMs);
    const onAbort = (): void => stop('aborted');
    signal.addEventListener('abort', onAbort, { once: true });
    child.stdout!.on('data', (chunk: Buffer) => capture.push(chunk));
    child.stderr!.on('data', (chunk: Buffer) => capture.push(chunk));
    launch.setUp?.(child).catch((error: Error) => {
      setUpFailure ??= error;
      endTree();
      drainThenFinish();
    });
    child.on('error', (error) => {
      if (settled) return;
      settled = true;
      void cleanUp().then(() => reject(error));
    });
    child.on('exit', (code) => {
      exitCode = code;
      // The sandbox's own pipes carry no output; left open they would hold `close` back.
      for (const pipe of child.stdio.slice(3)) pipe?.destroy();
      // What the command left running ends with it; the output already written is still read.
      endTree();
      drainThenFinish();
    });
    child.on('close', finish);
  });
}
