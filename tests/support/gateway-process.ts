// Runs `tern gateway` as a child process against a temp AGENT_HOME and waits for /ready.
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startCli } from './cli.js';
import { hungReport, reportFlags } from './hung-report.js';
import { tempHome, type TempHome } from './temp-home.js';

export interface ReadyBody {
  status?: string;
  channels: Array<{ name: string; state: string; reason?: string }>;
}

export interface GatewayProcess {
  home: TempHome;
  child: ChildProcessWithoutNullStreams;
  url: string;
  stderr(): string;
  ready(): Promise<{ status: number; body: ReadyBody }>;
  /** Polls /ready until `check` holds; resolves with the body it held for (a later read may already differ). */
  waitUntil(check: (body: ReadyBody, status: number) => boolean, timeoutMs?: number): Promise<ReadyBody>;
  /**
   * SIGINT, then the exit code; one that has not exited after `timeoutMs` is killed and the stop fails, saying what it
   * logged and what kept it running (`holding`). A process that has already exited (stopped, killed, crashed) gives its
   * exit code at once.
   */
  stop(timeoutMs?: number): Promise<number | null>;
  /** What keeps the process running, from the diagnostic report it writes when asked (`hung-report.ts`). */
  holding(): Promise<string>;
  /** SIGKILL: the process dies where it stands; resolves once it has. */
  kill(): Promise<void>;
}

export function modelEntry(modelUrl: string, streaming = false): Record<string, unknown> {
  return {
    model_name: 'fast',
    provider: 'openai',
    model: 'gpt-test',
    api_base: `${modelUrl}/v1`,
    api_keys: ['sk-test-key-0001'],
    streaming: { enabled: streaming },
  };
}

/** Starts `tern gateway` on a fresh home, or again on the home of one that ran before (`home`). */
export async function startGatewayProcess(
  config: Record<string, unknown>,
  env: NodeJS.ProcessEnv = {},
  given?: TempHome,
  readyMs = 90_000,
): Promise<GatewayProcess> {
  const home = given ?? tempHome();
  mkdirSync(home.home, { recursive: true });
  writeFileSync(join(home.home, 'config.json'), JSON.stringify({ version: 2, ...config }, null, 2));
  const gateway = config.gateway as { port: number };
  const url = `http://127.0.0.1:${gateway.port}`;
  // A gateway that will not stop is asked what holds it before it is killed (`stop`).
  const reports = join(home.home, 'reports');
  const child = startCli(['gateway'], { ...home.env, ...env }, reportFlags(reports));
  let errors = '';
  child.stderr.on('data', (c: Buffer) => (errors += c.toString()));
  let exitCode: number | null | undefined;
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve((exitCode = code))));
  const ready = async () => {
    const res = await fetch(`${url}/ready`);
    const body = (await res.json()) as ReadyBody;
    return { status: res.status, body };
  };
  const waitUntil = async (check: (body: ReadyBody, status: number) => boolean, timeoutMs = 20_000) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const answer = await ready().catch(() => undefined);
      if (answer && check(answer.body, answer.status)) return answer.body;
      if (exitCode !== undefined) throw new Error(`the gateway exited (code ${exitCode}) before that state: ${errors}`);
      if (Date.now() > deadline)
        throw new Error(`gateway never reached the expected state: ${JSON.stringify(answer?.body)} ${errors}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  // Started from the sources, the gateway compiles them first: with the suite's other workers busy, that alone can
  // take most of a minute. Settled is enough: ready, or every channel reported and one cannot start as configured.
  await waitUntil((body, status) => status === 200 || body.status === 'cannot_start', readyMs);
  return {
    home,
    child,
    url,
    stderr: () => errors,
    ready,
    waitUntil,
    stop: async (timeoutMs = 60_000) => {
      child.kill('SIGINT');
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), timeoutMs)));
      const code = await Promise.race([exited, late]);
      clearTimeout(timer);
      if (code !== 'late') return code;
      const holding = await hungReport(child, reports);
      child.kill('SIGKILL');
      await exited;
      const log = (() => {
        try {
          return readFileSync(join(home.home, 'logs', 'gateway.log'), 'utf8')
            .split('\n')
            .slice(-40)
            .join('\n');
        } catch {
          return '(no gateway.log)';
        }
      })();
      throw new Error(
        `the gateway did not stop within ${timeoutMs} ms of SIGINT (killed); it said: ${errors}\n` +
          `${holding}\nlast lines of its gateway.log:\n${log}`,
      );
    },
    holding: () => hungReport(child, reports),
    kill: async () => {
      child.kill('SIGKILL');
      await exited;
    },
  };
}
