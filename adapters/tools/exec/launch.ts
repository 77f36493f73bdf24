import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { withoutProxyCredentials } from '../../../store/config/index.js';
import type { ExecOptions } from '../options.js';
import { bwrapArgs, resolverFile, sandboxUser, type BwrapPlan } from '../sandbox/bwrap-plan.js';
import { SecretScanner } from '../sandbox/exposed-secrets.js';
import { resolveReal } from '../sandbox/resolve-real.js';
import type { Sandbox } from '../sandbox/sandbox.js';
import { ToolError } from '../tool.js';
import { describeIsolation, isolationState, type IsolationState, type SandboxNetwork } from './isolation.js';
import { MARKER_VARIABLE, newMarker } from './process-tree.js';
import type { Launch } from './run-command.js';
import { CommandCgroup } from './sandbox-cgroup.js';
import { NETWORK_NAMESPACE, SLIRP_RESOLVER, SlirpNetwork } from './sandbox-network.js';
import { setIdFilter } from './seccomp-filter.js';
import { onPath, startScript } from './start-script.js';

/**
 * Variables an isolated command does not get: the runtime's own settings (they may carry keys) and pointers to
 * sockets and folders the sandbox does not show.
 */
const WITHHELD = /^(AGENT_.*|XDG_RUNTIME_DIR|DBUS_SESSION_BUS_ADDRESS|SSH_AUTH_SOCK|GPG_AGENT_INFO|TMPDIR)$/;

function isolatedEnv(userHome: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) if (!WITHHELD.test(name)) env[name] = value;
  return withoutProxyCredentials({ ...env, HOME: userHome, TMPDIR: '/tmp' });
}

/** How long a call waits for the rest of a sandbox to go once its first process exited (`CommandCgroup.emptied`). */
const EMPTIED_MS = 2000;

/** Descriptors of the sandbox's pipes, as bubblewrap is told them (the order `pipes` are made in). */
const FD = { seccomp: 3, info: 4, block: 5, resolver: 6 } as const;

/**
 * The host's resolver file with slirp4netns's resolver in place of its name servers (a host's 127.0.0.53 is not there
 * inside).
 */
function resolverText(): string {
  const file = resolverFile();
  const kept = file
    ? readFileSync(file, 'utf8')
        .split('\n')
        .filter((line) => /^\s*(search|domain|options)\b/.test(line))
    : [];
  return [`nameserver ${SLIRP_RESOLVER}`, ...kept, ''].join('\n');
}

/** Resolves with bubblewrap's sandbox process once `--info-fd` names it; undefined when bubblewrap failed first. */
function sandboxPid(info: Readable): Promise<number | undefined> {
  return new Promise((resolve) => {
    let text = '';
    info.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      const pid = /"child-pid":\s*(\d+)/.exec(text);
      if (pid) resolve(Number(pid[1]));
    });
    info.on('close', () => resolve(undefined));
    info.on('error', () => resolve(undefined));
  });
}

/**
 * Turns a checked command line into how it starts: inside bubblewrap when the isolation setting and this
 * machine allow it, else as a plain `sh -c` whose leftovers are found by a marker. Both start through bash,
 * which closes every descriptor above stderr first. Built once per exec tool, so the protected-file scan keeps
 * its cache between calls.
 */
export class CommandLauncher {
  private readonly scanner: SecretScanner;
  private readonly home: string;

  constructor(
    private readonly sandbox: Sandbox,
    private readonly options: ExecOptions,
  ) {
    const { policy } = sandbox;
    this.home = resolveReal(policy.home);
    this.scanner = new SecretScanner({
      isProtected: (path) => sandbox.isHidden(path),
      home: this.home,
      userHome: policy.userHome,
      codingToolHome: policy.codingToolHome,
    });
  }

  /** How commands run under this tool's options on this machine (probed once per process). */
  state(): Promise<IsolationState> {
    const { isolation: mode, network, bwrap, slirp4netns } = this.options;
    return isolationState({ mode, network, bwrap, slirp4netns });
  }

  async launch(command: string, cwd: string, state?: IsolationState): Promise<Launch> {
    const known = state ?? (await this.state());
    if (known.kind === 'refused') throw new ToolError('isolation_unavailable', describeIsolation(known));
    return known.kind === 'isolated' ? this.isolated(command, cwd, known.network) : this.plain(command, cwd);
  }

  private plain(command: string, cwd: string): Launch {
    const marker = newMarker();
    const { userHome } = this.sandbox.policy;
    const env = withoutProxyCredentials({ ...process.env, HOME: userHome, [MARKER_VARIABLE]: marker });
    // Without bash the descriptors stay open, but what they were in this process is /dev/null there (sealedStdio).
    const argv: Launch['argv'] = onPath('bash') ? ['bash', '-c', startScript(), 'sh', command] : ['sh', '-c', command];
    return { argv, cwd, env, contained: false, marker };
  }

  private plan(cwd: string, network: SandboxNetwork): BwrapPlan {
    const { sandbox, options } = this;
    const { policy } = sandbox;
    const expose = options.exposePaths.map((path) => ({ ...path, source: resolveReal(path.source) }));
    const shown = policy.restrictToWorkspace ? [...sandbox.readRoots, ...sandbox.writeRoots] : [];
    const trees = [sandbox.workspace, ...shown, ...expose.map((path) => path.source)];
    const filter = setIdFilter();
    return {
      restrict: policy.restrictToWorkspace,
      workspace: sandbox.workspace,
      cwd,
      userHome: policy.userHome,
      home: this.home,
      readRoots: sandbox.readRoots.filter((root) => !sandbox.writeRoots.includes(root)),
      writeRoots: sandbox.writeRoots,
      expose,
      masks: this.scanner.masks(trees, expose),
      sessions: join(sandbox.workspace, 'sessions'),
      user: sandboxUser(),
      network: network.kind,
      tmpfsBytes: options.limits.memoryBytes,
      fds: { seccomp: filter ? FD.seccomp : undefined, info: FD.info, block: FD.block, resolver: FD.resolver },
    };
  }

  private isolated(command: string, cwd: string, network: SandboxNetwork): Launch {
    const { options } = this;
    const plan = this.plan(cwd, network);
    const inner = [options.bwrap, ...bwrapArgs(plan), '--', 'bash', '-c', startScript(options.limits), 'sh', command];
    const argv = (network.kind === 'own' ? [...NETWORK_NAMESPACE, ...inner] : inner) as Launch['argv'];
    const cgroup = CommandCgroup.create({
      processes: options.limits.processes,
      memoryBytes: options.limits.memoryBytes,
    });
    let slirp: SlirpNetwork | undefined;
    let ended = false;
    const setUp = async (child: ChildProcess): Promise<void> => {
      const pipe = (fd: number) => child.stdio[fd] as Readable & Writable;
      pipe(FD.seccomp).end(setIdFilter() ?? Buffer.alloc(0));
      pipe(FD.resolver).end(network.kind === 'own' ? resolverText() : '');
      // bubblewrap is moved into the cgroup while it sets up, so the sandbox it forks is born inside.
      const joined = cgroup?.join(child.pid!);
      const pid = await sandboxPid(pipe(FD.info));
      if (pid === undefined) return;
      // The sandbox waits on its block pipe: nothing of the command runs before it is in its cgroup and online.
      try {
        await joined;
        if (cgroup && !cgroup.holds(pid)) await cgroup.join(pid);
      } catch (error) {
        throw new ToolError('sandbox_cgroup', `the sandbox's limits could not be set: ${(error as Error).message}`);
      }
      if (network.kind === 'own') {
        slirp = await SlirpNetwork.attach(options.slirp4netns, child.pid!);
        // The command ended (a timeout, a cancelled turn) while its network came up.
        if (ended) slirp.close();
      }
      pipe(FD.block).end('1');
    };
    const tearDown = async () => {
      ended = true;
      slirp?.close();
      await cgroup?.emptied(EMPTIED_MS);
      cgroup?.remove();
    };
    return { argv, cwd, env: isolatedEnv(this.sandbox.policy.userHome), contained: true, pipes: 4, setUp, tearDown };
  }
}
