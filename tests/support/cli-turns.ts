// `tern agent` as a child process against a loopback model: a model call that is answered only when the test says so,
// the process's output as it comes, and its end.
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { startCli, runCli } from './cli.js';
import { completion } from './vendor-chat-completions.js';
import type { RecordedRequest, ScriptedReply, VendorServer } from './vendor-server.js';

export interface RunningCli {
  child: ChildProcessWithoutNullStreams;
  stdout(): string;
  stderr(): string;
  /** Resolves once stdout (or stderr) shows `text`. */
  shows(text: string, stream?: 'stdout' | 'stderr', timeoutMs?: number): Promise<void>;
  /**
   * The exit code (or the signal that ended it) and when it exited (`performance.now()`); awaiting it fails after
   * `WAIT_MS` with what the process printed, so a test against code that never ends fails instead of hanging.
   */
  ended: PromiseLike<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
}

/** How long a test waits for a process to end or a model call to arrive before it fails. */
const WAIT_MS = 60_000;

/** `promise`, whose wait fails after `ms` once awaited (not before: nothing rejects unobserved). */
function bounded<T>(promise: Promise<T>, ms: number, what: () => string): PromiseLike<T> {
  return {
    then(onFulfilled, onRejected) {
      let timer: NodeJS.Timeout | undefined;
      const limit = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(what())), ms)));
      return Promise.race([promise, limit])
        .finally(() => clearTimeout(timer))
        .then(onFulfilled, onRejected);
    },
  };
}

export function runningCli(args: string[], env: NodeJS.ProcessEnv): RunningCli {
  const child = startCli(args, env);
  let out = '';
  let err = '';
  const watchers = new Set<() => void>();
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
    for (const watch of watchers) watch();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    err += chunk.toString();
    for (const watch of watchers) watch();
  });
  const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal, at: performance.now() })),
  );
  const printed = (): string => `stdout: ${JSON.stringify(out)}; stderr: ${JSON.stringify(err)}`;
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    shows: (text, stream = 'stdout', timeoutMs = 30_000) =>
      new Promise<void>((resolve, reject) => {
        const look = (): void => {
          if (!(stream === 'stdout' ? out : err).includes(text)) return;
          watchers.delete(look);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(() => {
          watchers.delete(look);
          reject(
            new Error(
              `never showed ${JSON.stringify(text)} on ${stream}; ` +
                `stdout: ${JSON.stringify(out)}; stderr: ${JSON.stringify(err)}`,
            ),
          );
        }, timeoutMs);
        watchers.add(look);
        look();
      }),
    ended: bounded(ended, WAIT_MS, () => `still running after ${WAIT_MS} ms; ${printed()}`),
  };
}

/**
 * A model call that hangs until `release` (or for good): `requested` resolves once the call has reached the model,
 * so a test knows the turn is waiting on it.
 */
export function heldReply(): {
  reply: (request: RecordedRequest) => ScriptedReply;
  requested: PromiseLike<void>;
  release(text: string): void;
} {
  let requested!: () => void;
  let release!: (text: string) => void;
  const seen = new Promise<void>((resolve) => (requested = resolve));
  const answer = new Promise<string>((resolve) => (release = resolve));
  return {
    reply: () => {
      requested();
      const scripted: ScriptedReply = { ...completion({ content: '' }), chunks: [] };
      scripted.wait = answer.then((text) => {
        scripted.chunks = completion({ content: text }).chunks;
      });
      return scripted;
    },
    requested: bounded(seen, WAIT_MS, () => `the held model call never came within ${WAIT_MS} ms`),
    release,
  };
}

/** The events of a type in the home's log, read with `tern log` (works while a gateway writes it). */
export function logged(
  env: NodeJS.ProcessEnv,
  type: string,
): Array<{ type: string; at: number; turn?: string; data: Record<string, unknown> }> {
  const { stdout } = runCli(['log', '--type', type, '--limit', '1000', '--json'], env);
  return stdout.trim()
    ? stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { type: string; at: number; data: Record<string, unknown> })
    : [];
}

/** Waits until the vendor has received `count` requests. */
export async function requestsReach(vendor: VendorServer, count: number, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (vendor.requests.length < count) {
    if (Date.now() > deadline) throw new Error(`the model got ${vendor.requests.length} of ${count} requests`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
