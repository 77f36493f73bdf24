import { spawn } from 'node:child_process';

export type CommandOutcome =
  | { kind: 'exited'; code: number; output: string; truncated: boolean }
  | { kind: 'timed_out'; output: string; truncated: boolean }
  | { kind: 'aborted'; output: string; truncated: boolean };

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
 * Runs `command` with `sh -c` in its own process group, so a timeout or an abort ends the whole
 * tree it started, not just the shell.
 */
export function runCommand(command: string, cwd: string, timeoutMs: number, maxBytes: number, signal: AbortSignal): Promise<CommandOutcome> {
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', command], { cwd, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    const capture = new Capture(maxBytes);
    let ending: 'timed_out' | 'aborted' | undefined;
    const kill = (why: 'timed_out' | 'aborted') => {
      ending ??= why;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    };
    const timer = setTimeout(() => kill('timed_out'), timeoutMs);
    const onAbort = () => kill('aborted');
    signal.addEventListener('abort', onAbort, { once: true });
    child.stdout.on('data', (chunk: Buffer) => capture.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => capture.push(chunk));
    child.on('error', (error) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      reject(error);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      const base = { output: capture.text(), truncated: capture.truncated };
      resolve(ending ? { kind: ending, ...base } : { kind: 'exited', code: code ?? 1, ...base });
    });
  });
}
