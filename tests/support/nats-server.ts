// A real `nats-server -js` for cluster tests: a free loopback port, a temp store dir, and the failure moves the
// tests need (kill -9, stop/continue, restart on the same port and data).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite, type Callback, type Test } from 'uvu';
import { freePort } from './free-port.js';

const BINARY = process.env.NATS_SERVER ?? 'nats-server';

function binaryPresent(): boolean {
  return spawnSync(BINARY, ['--version'], { stdio: 'ignore' }).status === 0;
}

/**
 * Whether the cluster tests can run. Without the binary they are skipped with a message on a developer's machine;
 * in CI (`CI` set) a missing binary is an error, because `.ci/run` installs the Debian package.
 */
export function natsAvailable(): boolean {
  if (binaryPresent()) return true;
  if (process.env.CI)
    throw new Error(`nats-server is not installed (looked for "${BINARY}"): CI must install the nats-server package`);
  if (!warned) {
    warned = true;
    console.warn(
      `cluster tests skipped: nats-server is not installed (apt-get install nats-server, ` +
        `or set NATS_SERVER to its path)`,
    );
  }
  return false;
}
let warned = false;

export interface NatsServer {
  readonly url: string;
  readonly port: number;
  readonly storeDir: string;
  /** The running server's pid. */
  readonly pid: number;
  /** SIGKILL: nothing is flushed, clients see the connection drop. */
  kill9(): Promise<void>;
  /** SIGSTOP / SIGCONT: the server stays up but answers nothing until continued. */
  pause(): void;
  resume(): void;
  /** Starts the server again on the same port and store dir (after `kill9` or `stop`). */
  restart(): Promise<void>;
  /** Stops it (SIGTERM) and keeps the store dir. */
  stop(): Promise<void>;
  /** Stops it and removes the store dir. */
  close(): Promise<void>;
}

async function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  await new Promise<void>((resolve) => child.once('exit', () => resolve()));
}

function launch(port: number, storeDir: string): Promise<ChildProcess> {
  const child = spawn(BINARY, ['-js', '-sd', storeDir, '-a', '127.0.0.1', '-p', String(port)], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => fail(new Error(`nats-server did not get ready in 10 s:\n${output}`)), 10_000);
    const fail = (error: Error): void => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(error);
    };
    child.once('error', fail);
    child.once('exit', (code) => fail(new Error(`nats-server exited with ${code}:\n${output}`)));
    child.stderr!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Server is ready')) {
        clearTimeout(timer);
        child.removeAllListeners('exit');
        child.removeAllListeners('error');
        // Later output is not read; it must still be drained so the server never blocks on a full pipe.
        child.stderr!.removeAllListeners('data');
        child.stderr!.resume();
        resolve(child);
      }
    });
  });
}

/** Starts `nats-server -js` on a free loopback port with a fresh store dir. */
export async function startNatsServer(): Promise<NatsServer> {
  const storeDir = mkdtempSync(join(tmpdir(), 'tern-nats-'));
  const port = await freePort();
  let child = await launch(port, storeDir);
  let paused = false;
  const halt = async (signal: NodeJS.Signals): Promise<void> => {
    if (paused) child.kill('SIGCONT');
    paused = false;
    child.kill(signal);
    await exited(child);
  };
  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    storeDir,
    get pid() {
      return child.pid!;
    },
    kill9: () => halt('SIGKILL'),
    pause() {
      paused = true;
      child.kill('SIGSTOP');
    },
    resume() {
      paused = false;
      child.kill('SIGCONT');
    },
    async restart() {
      await halt('SIGTERM');
      child = await launch(port, storeDir);
    },
    stop: () => halt('SIGTERM'),
    async close() {
      await halt('SIGTERM');
      rmSync(storeDir, { recursive: true, force: true });
    },
  };
}

export type NatsContext = { server: NatsServer };

/**
 * A uvu suite with a nats-server started before its first test and closed after its last; every test is skipped
 * (with the message of `natsAvailable`) when the binary is missing outside CI. `after` adds a hook that runs after the
 * last test and before the server closes (a suite's own `after` would run after it: uvu runs them in order).
 */
export function natsSuite<C extends object = Record<string, never>>(
  name: string,
): {
  test: (title: string, fn: (context: C & NatsContext) => void | Promise<void>) => void;
  suite: Test<C & NatsContext>;
  after: (fn: (context: C & NatsContext) => void | Promise<void>) => void;
} {
  const available = natsAvailable();
  const tests = suite<C & NatsContext>(name);
  const hooks: Array<(context: C & NatsContext) => void | Promise<void>> = [];
  // uvu ends a suite whose `before` throws with every test failed and no message (its runner returns from a
  // `finally`): the error is written here, so a failed setup says why.
  // The same for `after.each` (a test that passed, then a teardown that threw, counts as failed without a word).
  const said =
    (what: string, fn: Callback<C & NatsContext>): Callback<C & NatsContext> =>
    async (context) => {
      try {
        await fn(context);
      } catch (error) {
        process.stderr.write(`\n${name}: ${what} failed: ${(error as Error)?.stack ?? String(error)}\n`);
        throw error;
      }
    };
  const before = tests.before;
  tests.before = Object.assign((fn: Callback<C & NatsContext>) => before(said('setup', fn)), { each: before.each });
  const after = tests.after;
  const afterEach = after.each;
  tests.after = Object.assign(after, { each: (fn: Callback<C & NatsContext>) => afterEach(said('teardown', fn)) });
  if (available) {
    tests.before(async (context) => {
      context.server = await startNatsServer();
    });
    tests.after(async (context) => {
      try {
        for (const hook of hooks) await hook(context);
      } finally {
        await context.server?.close();
      }
    });
  }
  return {
    test: (title, fn) => (available ? tests(title, fn) : tests.skip(title, fn)),
    suite: tests,
    after: (fn) => void hooks.push(fn),
  };
}
