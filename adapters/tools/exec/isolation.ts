import { execFile, spawn } from 'node:child_process';
import type { Writable } from 'node:stream';
import { namespaceArgs, sandboxUser } from '../sandbox/bwrap-plan.js';
import { sealedStdio } from './inherited-descriptors.js';
import { hearPipeErrors } from './pipe-errors.js';
import { cgroupsUsable } from './sandbox-cgroup.js';
import { NETWORK_NAMESPACE, SandboxNetworkError, SlirpNetwork } from './sandbox-network.js';
import { setIdFilter } from './seccomp-filter.js';
import { onPath } from './start-script.js';

export const ISOLATION_MODES = ['auto', 'bwrap', 'off'] as const;
/** `tools.exec.isolation`: `auto` uses bubblewrap when it works here, `bwrap` requires it, `off` never uses it. */
export type IsolationMode = (typeof ISOLATION_MODES)[number];

/**
 * The sandbox's network: `own` (a namespace slirp4netns connects, the host's loopback out of reach), or `cut`
 * (loopback only), because `tools.exec.network` is false or, with `reason`, because `own` does not work here.
 */
export type SandboxNetwork = { kind: 'own' } | { kind: 'cut'; reason?: string };

/** Whether bubblewrap can start a sandbox here, and if not, why. */
export type BwrapProbe =
  | { usable: true; version: string; network: SandboxNetwork; warnings: string[] }
  | { usable: false; reason: string };

/** How exec and cron command jobs run under a given config, for the start warning and `tern status`. */
export type IsolationState =
  | {
      kind: 'isolated';
      version: string;
      network: SandboxNetwork /** What the sandbox lacks here, for people. */;
      warnings: string[];
    }
  | { kind: 'guard_only'; reason: string }
  | { kind: 'off' }
  | { kind: 'refused'; reason: string };

const PROBE_TIMEOUT_MS = 10_000;

type RunResult = { ok: true; stdout: string } | { ok: false; reason: string };

function run(command: string, args: string[]): Promise<RunResult> {
  return new Promise((resolve) => {
    execFile(command, args, { timeout: PROBE_TIMEOUT_MS, encoding: 'utf8' }, (error, stdout, stderr) => {
      if (!error) return resolve({ ok: true, stdout });
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return resolve({ ok: false, reason: `${command} is not installed` });
      resolve({ ok: false, reason: (stderr.trim() || error.message).split('\n')[0]! });
    });
  });
}

/**
 * Starts `argv` as exec starts a sandbox: descriptor 3 carries the seccomp program, 4 and 5 are bubblewrap's
 * info and block pipes; `attach` runs between the sandbox's creation and its command.
 */
function runSandbox(
  argv: string[],
  attach: (pid: number) => Promise<{ close(): void } | undefined>,
): Promise<RunResult> {
  return new Promise((resolve) => {
    const [program, ...args] = argv as [string, ...string[]];
    const child = spawn(program, args, { stdio: sealedStdio(['ignore', 'ignore', 'pipe', 'pipe', 'pipe', 'pipe']) });
    hearPipeErrors(child);
    let stderr = '';
    let attached: { close(): void } | undefined;
    let failure: string | undefined;
    const timer = setTimeout(() => child.kill('SIGKILL'), PROBE_TIMEOUT_MS);
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    (child.stdio[3] as Writable).end(setIdFilter() ?? Buffer.alloc(0));
    let info = '';
    let seen = false;
    child.stdio[4]!.on('data', (chunk: Buffer) => {
      info += chunk.toString();
      if (seen || !/"child-pid":\s*\d+/.test(info)) return;
      seen = true;
      attach(child.pid!)
        .then((value) => (attached = value))
        .catch((error: Error) => (failure = error instanceof SandboxNetworkError ? error.reason : error.message))
        .finally(() => (child.stdio.at(5) as Writable).end('1'));
    });
    child.on('error', (error) => {
      clearTimeout(timer);
      resolve({
        ok: false,
        reason: (error as NodeJS.ErrnoException).code === 'ENOENT' ? `${program} is not installed` : error.message,
      });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      attached?.close();
      if (failure) resolve({ ok: false, reason: failure });
      else if (code === 0) resolve({ ok: true, stdout: '' });
      else resolve({ ok: false, reason: stderr.trim().split('\n')[0] || `exit code ${code}` });
    });
  });
}

/** An empty sandbox with exec's namespaces, seccomp program and start shell. */
function sandboxArgv(bwrap: string, network: SandboxNetwork['kind']): string[] {
  const seccomp = setIdFilter() ? 3 : undefined;
  const flags = namespaceArgs({ user: sandboxUser(), network, fds: { seccomp, info: 4, block: 5 } });
  const inner = [
    bwrap,
    '--ro-bind',
    '/',
    '/',
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    '--tmpfs',
    '/tmp',
    ...flags,
    '--',
    'bash',
    '-c',
    'exit 0',
  ];
  return network === 'own' ? [...NETWORK_NAMESPACE, ...inner] : inner;
}

export interface IsolationSetting {
  mode: IsolationMode;
  network: boolean;
  /** The bubblewrap program (`bwrap` on the PATH). */
  bwrap: string;
  /** The program that connects the sandbox's network (`slirp4netns` on the PATH). */
  slirp4netns?: string;
}

const probes = new Map<string, Promise<BwrapProbe>>();

async function probeNetwork(bwrap: string, slirp4netns: string): Promise<SandboxNetwork> {
  const started = await runSandbox(sandboxArgv(bwrap, 'own'), (pid) => SlirpNetwork.attach(slirp4netns, pid));
  return started.ok ? { kind: 'own' } : { kind: 'cut', reason: started.reason };
}

/**
 * Starts one empty sandbox with everything exec uses (user namespace, seccomp program, start shell, and the
 * network namespace slirp4netns connects when the network is on), once per process: a kernel without
 * unprivileged user namespaces, or a container that forbids them, fails here and not in the middle of a turn.
 */
export function probeBwrap(setting: Omit<IsolationSetting, 'mode'>): Promise<BwrapProbe> {
  const slirp4netns = setting.slirp4netns ?? 'slirp4netns';
  const key = `${setting.bwrap}\0${setting.network}\0${slirp4netns}`;
  let probe = probes.get(key);
  if (!probe) {
    probe = (async (): Promise<BwrapProbe> => {
      const version = await run(setting.bwrap, ['--version']);
      if (!version.ok) return { usable: false, reason: version.reason };
      if (!onPath('bash'))
        return { usable: false, reason: 'bash is not installed (the sandbox starts every command with it)' };
      const started = await runSandbox(sandboxArgv(setting.bwrap, 'cut'), async () => undefined);
      if (!started.ok)
        return { usable: false, reason: `${setting.bwrap} cannot start a sandbox here: ${started.reason}` };
      const network: SandboxNetwork = setting.network
        ? await probeNetwork(setting.bwrap, slirp4netns)
        : { kind: 'cut' };
      const warnings: string[] = [];
      if (network.kind === 'cut' && network.reason) {
        warnings.push(
          `its network is cut: ${network.reason}. Install slirp4netns (apt-get ` +
            `install slirp4netns), or set tools.exec.network to false to accept this`,
        );
      }
      if (process.getuid?.() === 0 && !cgroupsUsable()) {
        warnings.push(
          'tools.exec.limits.processes and the shared-memory part of memory_mb are not enforced: the gateway ' +
            'runs as root, which the kernel exempts from the process limit, and may not make cgroups here',
        );
      }
      return { usable: true, version: version.stdout.trim(), network, warnings };
    })();
    probes.set(key, probe);
  }
  return probe;
}

export async function isolationState(setting: IsolationSetting): Promise<IsolationState> {
  if (setting.mode === 'off') return { kind: 'off' };
  const probe = await probeBwrap(setting);
  if (probe.usable)
    return { kind: 'isolated', version: probe.version, network: probe.network, warnings: probe.warnings };
  return setting.mode === 'bwrap'
    ? { kind: 'refused', reason: probe.reason }
    : { kind: 'guard_only', reason: probe.reason };
}

/** One line a person can act on; `tern status`, the start warning and a later `tern doctor` all print this. */
export function describeIsolation(state: IsolationState): string {
  switch (state.kind) {
    case 'isolated':
      return [`exec runs inside bubblewrap (${state.version})`, ...state.warnings].join('; ');
    case 'off':
      return (
        'exec runs without isolation (tools.exec.isolation is "off"); only ' +
        'the command guard stands between a command and your files'
      );
    case 'guard_only':
      return (
        `exec runs without isolation: ${state.reason}; only the command guard ` +
        `stands between a command and your files. Install bubblewrap (apt-get ` +
        `install bubblewrap) or set tools.exec.isolation to "off" to accept this`
      );
    case 'refused':
      return (
        `exec and cron command jobs are refused: tools.exec.isolation is "bwrap" but ` +
        `${state.reason}. Install bubblewrap or set tools.exec.isolation to "auto"`
      );
  }
}
