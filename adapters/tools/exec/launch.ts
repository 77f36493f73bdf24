import { join } from 'node:path';
import { withoutProxyCredentials } from '../../../store/config/index.js';
import type { ExecOptions } from '../options.js';
import { bwrapArgs } from '../sandbox/bwrap-plan.js';
import { SecretScanner } from '../sandbox/exposed-secrets.js';
import { resolveReal } from '../sandbox/resolve-real.js';
import type { Sandbox } from '../sandbox/sandbox.js';
import { ToolError } from '../tool.js';
import { describeIsolation, isolationState } from './isolation.js';
import { MARKER_VARIABLE, newMarker } from './process-tree.js';
import type { Launch } from './run-command.js';

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

/**
 * Turns a checked command line into how it starts: inside bubblewrap when the isolation setting and this
 * machine allow it, else as a plain `sh -c` whose leftovers are found by a marker. Built once per exec tool,
 * so the protected-file scan keeps its cache between calls.
 */
export class CommandLauncher {
  private readonly scanner: SecretScanner;
  private readonly home: string;

  constructor(private readonly sandbox: Sandbox, private readonly options: ExecOptions) {
    const { policy } = sandbox;
    this.home = resolveReal(policy.home);
    this.scanner = new SecretScanner({
      isProtected: (path) => sandbox.isHidden(path),
      home: this.home,
      userHome: policy.userHome,
      codingToolHome: policy.codingToolHome,
    });
  }

  async launch(command: string, cwd: string): Promise<Launch> {
    const { isolation: mode, network, bwrap } = this.options;
    const state = await isolationState({ mode, network, bwrap });
    if (state.kind === 'refused') throw new ToolError('isolation_unavailable', describeIsolation(state));
    return state.kind === 'isolated' ? this.isolated(command, cwd) : this.plain(command, cwd);
  }

  private plain(command: string, cwd: string): Launch {
    const marker = newMarker();
    const { userHome } = this.sandbox.policy;
    const env = withoutProxyCredentials({ ...process.env, HOME: userHome, [MARKER_VARIABLE]: marker });
    return { argv: ['sh', '-c', command], cwd, env, contained: false, marker };
  }

  private isolated(command: string, cwd: string): Launch {
    const { sandbox, options } = this;
    const { policy } = sandbox;
    const expose = options.exposePaths.map((path) => ({ ...path, source: resolveReal(path.source) }));
    const shown = policy.restrictToWorkspace ? [...sandbox.readRoots, ...sandbox.writeRoots] : [];
    const trees = [sandbox.workspace, ...shown, ...expose.map((path) => path.source)];
    const plan = {
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
      network: options.network,
    };
    return { argv: [options.bwrap, ...bwrapArgs(plan), '--', 'sh', '-c', command], cwd, env: isolatedEnv(policy.userHome), contained: true };
  }
}
