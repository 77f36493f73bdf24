import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { LineRpc, RpcError } from './line-rpc.js';

export interface ChildSpec {
  /** For logs: the hook's or plugin's name. */
  name: string;
  /** Program and arguments. */
  command: readonly string[];
  dir?: string;
  /** Added to the inherited environment (minus Tern's own `AGENT_*` settings and keys). */
  env: Record<string, string>;
}

export type ChildLog = (
  level: 'info' | 'warn' | 'error',
  message: string,
  fields: Record<string, string | number>,
) => void;

export interface SupervisionOptions<H> {
  /** The first exchange after start (`hook.hello`, `plugin.hello`); a child that fails it is restarted like a crash. */
  handshake: (rpc: LineRpc, signal: AbortSignal) => Promise<H>;
  handshakeTimeoutMs?: number;
  backoff?: { baseMs: number; maxMs: number };
  log: ChildLog;
  /** Each time the child has started and answered the handshake. */
  onReady?: (hello: H) => void;
  /** Each time it went down (crash, exit, failed handshake), with the reason and the pause before the next start. */
  onDown?: (reason: string, restartInMs: number) => void;
  processEnv?: NodeJS.ProcessEnv;
}

/** Inherited by a hook or plugin process: everything but Tern's own settings and keys. */
export function childEnvironment(processEnv: NodeJS.ProcessEnv, extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(processEnv))
    if (value !== undefined && !key.startsWith('AGENT_')) env[key] = value;
  return Object.assign(env, extra);
}

type Running<H> = { rpc: LineRpc; hello: H };

const OUTPUT_CLOSED_GRACE_MS = 1_000;

/** What a crashed Node process said, in a line: its error (`SyntaxError: …`) and where (`index.js:3`). */
function errorSummary(stderr: readonly string[], dir: string | undefined): string | undefined {
  const error = stderr.find((line) => /^(?:[A-Z]\w*)?(Error|Exception)\b/.test(line));
  if (!error) return undefined;
  const place = stderr.map((line) => /^(?:file:\/\/)?(\/.+):(\d+)$/.exec(line)).find((match) => match !== null);
  const file = place
    ? dir && place[1]!.startsWith(`${dir}/`)
      ? place[1]!.slice(dir.length + 1)
      : place[1]!
    : undefined;
  return place ? `${error} (${file}:${place[2]})` : error;
}

/**
 * A child process that speaks JSON-RPC over stdio, kept running: when it exits or fails its handshake it is
 * started again after a pause that doubles each time (from `baseMs` to `maxMs`) and resets once a start succeeds.
 * Callers wait for the running child with `ready`, bounded by their own signal.
 */
export class SupervisedChild<H> {
  private running: Running<H> | undefined;
  private child: ChildProcess | undefined;
  private waiters: Array<(running: Running<H>) => void> = [];
  private failures = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private stopped = false;
  /** Starts after the first: how many times the child was brought back. */
  restarts = 0;
  /** Why the child is down, while it is. */
  down: string | undefined;

  constructor(
    readonly spec: ChildSpec,
    private readonly options: SupervisionOptions<H>,
  ) {}

  start(): void {
    this.stopped = false;
    this.launch();
  }

  /** The running child now, if it is up and has answered its handshake. */
  current(): Running<H> | undefined {
    return this.running && !this.running.rpc.closed ? this.running : undefined;
  }

  /** The running child, once it has answered its handshake; rejects when `signal` aborts first. */
  ready(signal: AbortSignal): Promise<Running<H>> {
    if (this.running && !this.running.rpc.closed) return Promise.resolve(this.running);
    if (this.stopped) return Promise.reject(new RpcError('rpc_closed', `${this.spec.name} is stopped`));
    return new Promise((resolve, reject) => {
      const onAbort = (): void => {
        this.waiters = this.waiters.filter((w) => w !== take);
        reject(new RpcError('rpc_aborted', `${this.spec.name} is not running (${this.down ?? 'starting'})`));
      };
      const take = (running: Running<H>): void => {
        signal.removeEventListener('abort', onAbort);
        resolve(running);
      };
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(take);
    });
  }

  /** Closes its input and waits up to `graceMs` for it to leave, then kills it. */
  async stop(graceMs = 2000): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    const child = this.child;
    this.running?.rpc.close('stopped');
    this.running = undefined;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.stdin?.end();
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    await exited;
    clearTimeout(timer);
  }

  private launch(): void {
    const { spec, options } = this;
    const [program, ...args] = spec.command;
    let child: ChildProcess;
    try {
      child = spawn(program!, args, {
        cwd: spec.dir,
        env: childEnvironment(options.processEnv ?? process.env, spec.env),
        stdio: ['pipe', 'pipe', 'pipe'],
      });
    } catch (error) {
      return this.wentDown(`cannot start ${program} (${(error as Error).message})`);
    }
    this.child = child;
    const rpc = new LineRpc(child.stdout!, child.stdin!, (line) =>
      options.log('warn', 'process printed a line that is not JSON-RPC', {
        process: spec.name,
        line: line.slice(0, 500),
      }),
    );
    const stderr: string[] = [];
    createInterface({ input: child.stderr!, crlfDelay: Infinity }).on('line', (line) => {
      if (stderr.length < 50) stderr.push(line);
      options.log('warn', 'process stderr', { process: spec.name, line: line.slice(0, 500) });
    });
    let gone = false;
    const leave = (why: string): void => {
      if (gone) return;
      gone = true;
      const said = errorSummary(stderr, spec.dir);
      const reason = said ? `${why}: ${said}` : why;
      rpc.close(reason);
      if (this.running?.rpc === rpc) this.running = undefined;
      if (this.child === child) this.child = undefined;
      if (!this.stopped) this.wentDown(reason);
    };
    child.on('error', (error) => leave(`cannot start ${program} (${error.message})`));
    // 'close', not 'exit': by then its stderr has been read to the end, so the reason can quote it.
    child.on('close', (code, signal) => leave(signal ? `exited on ${signal}` : `exited with code ${code}`));
    const handshake = new AbortController();
    const timer = setTimeout(() => handshake.abort(), options.handshakeTimeoutMs ?? 5000);
    options.handshake(rpc, handshake.signal).then(
      (hello) => {
        clearTimeout(timer);
        if (gone || this.stopped) return;
        this.failures = 0;
        this.down = undefined;
        this.running = { rpc, hello };
        options.onReady?.(hello);
        const waiting = this.waiters;
        this.waiters = [];
        waiting.forEach((take) => take({ rpc, hello }));
      },
      (error: unknown) => {
        clearTimeout(timer);
        if (gone) return;
        const reason = `the handshake failed (${(error as Error).message})`;
        const fail = (): void => {
          leave(reason);
          child.kill('SIGKILL');
        };
        if (!(error instanceof RpcError && error.code === 'rpc_closed')) return fail();
        // It closed its output: it is most likely exiting, and its 'close' says how (the exit code, the error it
        // printed), which is the reason worth showing. One that closed its output and lives on is ended shortly.
        const grace = setTimeout(() => !gone && fail(), OUTPUT_CLOSED_GRACE_MS);
        child.once('close', () => clearTimeout(grace));
      },
    );
  }

  private wentDown(reason: string): void {
    const { baseMs, maxMs } = this.options.backoff ?? { baseMs: 500, maxMs: 30_000 };
    const pause = Math.min(maxMs, baseMs * 2 ** this.failures);
    this.failures++;
    this.down = reason;
    this.options.onDown?.(reason, pause);
    this.timer = setTimeout(() => {
      if (this.stopped) return;
      this.restarts++;
      this.launch();
    }, pause);
  }
}
