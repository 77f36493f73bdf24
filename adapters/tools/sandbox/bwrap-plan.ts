import { existsSync, lstatSync, readlinkSync, realpathSync } from 'node:fs';
import { dirname, sep } from 'node:path';
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
  network: boolean;
}

/** The system the commands run on: read-only. Folders that are links (`/bin` → `usr/bin`) stay links. */
const SYSTEM_DIRS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/etc'];
/** Files the spec protects from writing; with the whole file system shown they stay read-only. */
const SYSTEM_WRITE_TARGETS = ['/etc/sudoers', '/etc/sudoers.d', '/etc/passwd', '/etc/shadow', '/etc/systemd'];

let systemArgs: string[] | undefined;

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
    .sort((a, b) => depth(a.layer.target) - depth(b.layer.target) || Number(b.layer.hides) - Number(a.layer.hides) || a.i - b.i)
    .flatMap(({ layer }) => layer.args);
}

function layers(plan: BwrapPlan): Layer[] {
  const tmpfs = (target: string): Layer => ({ target, args: ['--tmpfs', target], hides: true });
  const bind = (source: string, target: string, writable: boolean): Layer => ({ target, args: [writable ? '--bind' : '--ro-bind', source, target], hides: false });
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
    ...plan.expose.filter((path) => existsSync(path.source)).map((path) => bind(path.source, path.target, path.mode === 'rw')),
    ...(existsSync(plan.sessions) ? [bind(plan.sessions, plan.sessions, false)] : []),
  ];
}

/** The bubblewrap arguments for `plan`, up to the command (`-- sh -c …` comes after). */
export function bwrapArgs(plan: BwrapPlan): string[] {
  const base = plan.restrict ? [...systemMounts(), '--tmpfs', '/tmp', '--tmpfs', '/var/tmp'] : ['--bind', '/', '/'];
  const masks = [
    ...plan.masks.files.flatMap((file) => ['--ro-bind', '/dev/null', file]),
    ...plan.masks.dirs.flatMap((dir) => ['--tmpfs', dir, '--remount-ro', dir]),
  ];
  return [
    ...base,
    '--proc', '/proc',
    '--dev', '/dev',
    ...ordered(layers(plan)),
    ...masks,
    '--chdir', plan.cwd,
    '--unshare-pid', '--unshare-ipc', '--unshare-uts', '--unshare-cgroup-try',
    ...(plan.network ? [] : ['--unshare-net']),
    '--die-with-parent', '--new-session', '--cap-drop', 'ALL',
  ];
}
