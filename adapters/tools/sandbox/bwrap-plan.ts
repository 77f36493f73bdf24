import { existsSync, lstatSync, readdirSync, readlinkSync, realpathSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import { isWithin } from './resolve-real.js';

/** A host folder shown inside the sandbox (`tools.exec.isolation.expose_paths`). */
export interface ExposePath {
  source: string;
  target: string;
  mode: 'ro' | 'rw';
}

/** What the sandbox of one command shows; every path is absolute and real (links resolved). */
export interface BwrapPlan {
  /** `restrict_to_workspace`: false shows the whole file system (writable), minus the runtime's own files. */
  restrict: boolean;
  workspace: string;
  cwd: string;
  /** The user's home: an empty tmpfs inside. */
  userHome: string;
  /** `AGENT_HOME`: nothing of it shows except the workspace when the workspace lies inside it. */
  home: string;
  readRoots: string[];
  writeRoots: string[];
  expose: ExposePath[];
  /** Protected entries inside what is shown: files read as nothing, folders as empty and read-only. */
  masks: { files: string[]; dirs: string[] };
  /** The workspace `sessions/` folder, shown read-only. */
  sessions: string;
  /** The user the command runs as inside its user namespace; on the host it stays the gateway's user. */
  user: { uid: number; gid: number };
  /**
   * `own`: the namespace `unshare` made and slirp4netns connects (bubblewrap joins it, and the resolver is
   * slirp4netns's); `cut`: a namespace of its own with nothing in it but loopback.
   */
  network: 'own' | 'cut';
  /** The size of every writable tmpfs (`/tmp`, the empty homes): what they hold is memory. */
  tmpfsBytes: number;
  /** Descriptors bubblewrap reads (`--seccomp`, `--info-fd`, `--block-fd`, the resolver file's content). */
  fds: { seccomp?: number; info: number; block: number; resolver?: number };
}

/** The system the commands run on: read-only. Folders that are links (`/bin` → `usr/bin`) stay links. */
const SYSTEM_DIRS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/etc'];
/** Files the spec protects from writing; with the whole file system shown they stay read-only. */
const SYSTEM_WRITE_TARGETS = ['/etc/sudoers', '/etc/sudoers.d', '/etc/passwd', '/etc/shadow', '/etc/systemd'];

let systemArgs: string[] | undefined;
let systemSecrets: { files: string[]; dirs: string[] } | undefined;

/**
 * What in `/etc` a local user may not read (`shadow`, `gshadow`, `ssl/private`, sudoers): the command runs as the
 * gateway's user on the host, root on many servers, who owns them, so they are hidden rather than left to the
 * file modes. The sandbox sees what any local user sees.
 */
export function unreadableSystemEntries(root = '/etc'): { files: string[]; dirs: string[] } {
  const files: string[] = [];
  const dirs: string[] = [];
  const walk = (dir: string): void => {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return;
    }
    for (const name of names) {
      const path = join(dir, name);
      const stats = lstatSync(path, { throwIfNoEntry: false });
      if (!stats || stats.isSymbolicLink()) continue;
      const readable = (stats.mode & 0o004) !== 0;
      if (stats.isDirectory()) {
        if (!readable || (stats.mode & 0o001) === 0) dirs.push(path);
        else walk(path);
      } else if (stats.isFile() && !readable) {
        files.push(path);
      }
    }
  };
  walk(root);
  return { files, dirs };
}

function systemMounts(): string[] {
  if (systemArgs) return systemArgs;
  const args: string[] = [];
  for (const dir of SYSTEM_DIRS) {
    const stats = lstatSync(dir, { throwIfNoEntry: false });
    if (!stats) continue;
    if (stats.isSymbolicLink()) args.push('--symlink', readlinkSync(dir), dir);
    else args.push('--ro-bind', dir, dir);
  }
  // A resolver file kept outside /etc (systemd-resolved's stub) must come along, or names stop resolving.
  if (existsSync('/etc/resolv.conf')) {
    const resolver = realpathSync('/etc/resolv.conf');
    if (!SYSTEM_DIRS.some((dir) => isWithin(resolver, dir))) args.push('--ro-bind', resolver, resolver);
  }
  // A Node installed under the home (nvm, volta) is hidden by the empty home unless shown again.
  const nodePrefix = dirname(dirname(realpathSync(process.execPath)));
  if (!SYSTEM_DIRS.some((dir) => isWithin(nodePrefix, dir))) args.push('--ro-bind', nodePrefix, nodePrefix);
  systemArgs = args;
  return args;
}

type Layer = { target: string; args: string[]; hides: boolean };

const depth = (path: string) => path.split(sep).filter(Boolean).length;

/**
 * Shallow targets first, so a deeper bind shows through a tmpfs or read-only bind above it (the workspace
 * inside the hidden home); at equal depth what hides comes first, so `AGENT_HOME` as the workspace is shown.
 */
function ordered(layers: Layer[]): string[] {
  return layers
    .map((layer, i) => ({ layer, i }))
    .sort(
      (a, b) =>
        depth(a.layer.target) - depth(b.layer.target) || Number(b.layer.hides) - Number(a.layer.hides) || a.i - b.i,
    )
    .flatMap(({ layer }) => layer.args);
}

function layers(plan: BwrapPlan): Layer[] {
  const tmpfs = (target: string): Layer => ({
    target,
    args: ['--size', String(plan.tmpfsBytes), '--tmpfs', target],
    hides: true,
  });
  const bind = (source: string, target: string, writable: boolean): Layer => ({
    target,
    args: [writable ? '--bind' : '--ro-bind', source, target],
    hides: false,
  });
  const shown = plan.restrict
    ? [
        ...(plan.userHome !== sep && !isWithin(plan.userHome, plan.workspace) ? [tmpfs(plan.userHome)] : []),
        ...plan.readRoots.filter((root) => existsSync(root)).map((root) => bind(root, root, false)),
        ...plan.writeRoots.filter((root) => existsSync(root)).map((root) => bind(root, root, true)),
      ]
    : SYSTEM_WRITE_TARGETS.filter((target) => existsSync(target)).map((target) => bind(target, target, false));
  return [
    ...shown,
    tmpfs(plan.home),
    bind(plan.workspace, plan.workspace, true),
    ...plan.expose
      .filter((path) => existsSync(path.source))
      .map((path) => bind(path.source, path.target, path.mode === 'rw')),
    ...(existsSync(plan.sessions) ? [bind(plan.sessions, plan.sessions, false)] : []),
  ];
}

/** Where the resolver file is read from (`/etc/resolv.conf` may be a link out of `/etc`), if there is one. */
export function resolverFile(): string | undefined {
  return existsSync('/etc/resolv.conf') ? realpathSync('/etc/resolv.conf') : undefined;
}

/** The bubblewrap arguments for `plan`, up to the command (`-- bash -c …` comes after). */
export function bwrapArgs(plan: BwrapPlan): string[] {
  const size = ['--size', String(plan.tmpfsBytes)];
  const base = plan.restrict
    ? [...systemMounts(), ...size, '--tmpfs', '/tmp', ...size, '--tmpfs', '/var/tmp']
    : ['--bind', '/', '/'];
  systemSecrets ??= unreadableSystemEntries();
  const files = [...systemSecrets.files, ...plan.masks.files];
  const dirs = [...systemSecrets.dirs, ...plan.masks.dirs];
  const masks = [
    ...files.flatMap((file) => ['--ro-bind', '/dev/null', file]),
    ...dirs.flatMap((dir) => ['--tmpfs', dir, '--remount-ro', dir]),
  ];
  const resolver = resolverFile();
  const { fds } = plan;
  return [
    ...base,
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    ...ordered(layers(plan)),
    ...masks,
    ...(plan.network === 'own' && resolver && fds.resolver !== undefined
      ? ['--ro-bind-data', String(fds.resolver), resolver]
      : []),
    '--chdir',
    plan.cwd,
    ...namespaceArgs(plan),
  ];
}

/**
 * The user a command runs as inside: the gateway's own uid, or `nobody` when that is root. On the host its
 * files belong to the gateway's user either way (a user namespace maps one uid, the one that made it).
 */
export function sandboxUser(): { uid: number; gid: number } {
  const uid = process.getuid?.() ?? 0;
  return uid === 0 ? { uid: 65534, gid: 65534 } : { uid, gid: process.getgid?.() ?? uid };
}

/**
 * Everything but the mounts: a user namespace with no capabilities in which no further one can be made, PID,
 * IPC, UTS and cgroup namespaces, the network namespace (unless `unshare` made it), the seccomp program, and
 * the pipes on which bubblewrap says which process is the sandbox and waits until its network and cgroup are set.
 */
export function namespaceArgs(plan: Pick<BwrapPlan, 'user' | 'network' | 'fds'>): string[] {
  const { user, network, fds } = plan;
  return [
    '--unshare-user',
    '--uid',
    String(user.uid),
    '--gid',
    String(user.gid),
    '--disable-userns',
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-cgroup-try',
    ...(network === 'cut' ? ['--unshare-net'] : []),
    '--die-with-parent',
    '--new-session',
    '--cap-drop',
    'ALL',
    ...(fds.seccomp === undefined ? [] : ['--seccomp', String(fds.seccomp)]),
    '--info-fd',
    String(fds.info),
    '--block-fd',
    String(fds.block),
  ];
}
