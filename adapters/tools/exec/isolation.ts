import { execFile } from 'node:child_process';

export const ISOLATION_MODES = ['auto', 'bwrap', 'off'] as const;
/** `tools.exec.isolation`: `auto` uses bubblewrap when it works here, `bwrap` requires it, `off` never uses it. */
export type IsolationMode = (typeof ISOLATION_MODES)[number];

/** Whether bubblewrap can start a sandbox here, and if not, why. */
export type BwrapProbe = { usable: true; version: string } | { usable: false; reason: string };

/** How exec and cron command jobs run under a given config, for the start warning and `tern status`. */
export type IsolationState =
  | { kind: 'isolated'; version: string }
  | { kind: 'guard_only'; reason: string }
  | { kind: 'off' }
  | { kind: 'refused'; reason: string };

const PROBE_TIMEOUT_MS = 10_000;

function run(command: string, args: string[]): Promise<{ ok: true; stdout: string } | { ok: false; reason: string }> {
  return new Promise((resolve) => {
    execFile(command, args, { timeout: PROBE_TIMEOUT_MS, encoding: 'utf8' }, (error, stdout, stderr) => {
      if (!error) return resolve({ ok: true, stdout });
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return resolve({ ok: false, reason: `${command} is not installed` });
      resolve({ ok: false, reason: (stderr.trim() || error.message).split('\n')[0]! });
    });
  });
}

const probes = new Map<string, Promise<BwrapProbe>>();

/**
 * Starts one empty sandbox with the namespaces exec uses (the network one too when it is cut), once per
 * process: a kernel without unprivileged user namespaces, or a container that forbids them, fails here and
 * not in the middle of a turn.
 */
export function probeBwrap(bwrap: string, network: boolean): Promise<BwrapProbe> {
  const key = `${bwrap}\0${network}`;
  let probe = probes.get(key);
  if (!probe) {
    probe = (async (): Promise<BwrapProbe> => {
      const version = await run(bwrap, ['--version']);
      if (!version.ok) return { usable: false, reason: version.reason };
      const sandbox = ['--ro-bind', '/', '/', '--proc', '/proc', '--dev', '/dev', '--tmpfs', '/tmp', '--unshare-pid', '--unshare-ipc', '--die-with-parent', '--new-session', '--cap-drop', 'ALL'];
      const started = await run(bwrap, [...sandbox, ...(network ? [] : ['--unshare-net']), '--', 'true']);
      if (!started.ok) return { usable: false, reason: `${bwrap} cannot start a sandbox here: ${started.reason}` };
      return { usable: true, version: version.stdout.trim() };
    })();
    probes.set(key, probe);
  }
  return probe;
}

export interface IsolationSetting {
  mode: IsolationMode;
  network: boolean;
  /** The bubblewrap program (`bwrap` on the PATH). */
  bwrap: string;
}

export async function isolationState(setting: IsolationSetting): Promise<IsolationState> {
  if (setting.mode === 'off') return { kind: 'off' };
  const probe = await probeBwrap(setting.bwrap, setting.network);
  if (probe.usable) return { kind: 'isolated', version: probe.version };
  return setting.mode === 'bwrap' ? { kind: 'refused', reason: probe.reason } : { kind: 'guard_only', reason: probe.reason };
}

/** One line a person can act on; `tern status`, the start warning and a later `tern doctor` all print this. */
export function describeIsolation(state: IsolationState): string {
  switch (state.kind) {
    case 'isolated':
      return `exec runs inside bubblewrap (${state.version})`;
    case 'off':
      return 'exec runs without isolation (tools.exec.isolation is "off"); only the command guard stands between a command and your files';
    case 'guard_only':
      return `exec runs without isolation: ${state.reason}; only the command guard stands between a command and your files. Install bubblewrap (apt-get install bubblewrap) or set tools.exec.isolation to "off" to accept this`;
    case 'refused':
      return `exec and cron command jobs are refused: tools.exec.isolation is "bwrap" but ${state.reason}. Install bubblewrap or set tools.exec.isolation to "auto"`;
  }
}
