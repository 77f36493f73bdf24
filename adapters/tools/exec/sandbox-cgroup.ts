import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * A cgroup per command, for the limits the kernel does not apply per user namespace: RLIMIT_NPROC never binds
 * uid 0 on the host (the kernel exempts it, whatever uid it has inside), so under a gateway run as root only a
 * `pids` cgroup bounds a fork loop; a `memory` cgroup bounds shared memory and tmpfs, which RLIMIT_DATA does not
 * count. Made where this process may make cgroups (root, a delegated hierarchy); elsewhere the rlimits stand alone.
 */
export interface CgroupLimits {
  processes: number;
  memoryBytes: number;
}

/** A folder to make per command and the limit files to write in it. */
type Place = { parent: string; files: (limits: CgroupLimits) => Record<string, string> };

const PREFIX = 'tern-exec-';

interface MountedHierarchy {
  mountPoint: string;
  kind: 'v1' | 'v2';
  options: string[];
}

function hierarchies(): MountedHierarchy[] {
  let text: string;
  try {
    text = readFileSync('/proc/self/mountinfo', 'utf8');
  } catch {
    return [];
  }
  return text.split('\n').flatMap((line): MountedHierarchy[] => {
    const [before, after] = line.split(' - ');
    if (!before || !after) return [];
    const mountPoint = before.split(' ')[4]!;
    const [type, , superOptions = ''] = after.split(' ');
    if (type === 'cgroup2') return [{ mountPoint, kind: 'v2', options: [] }];
    if (type === 'cgroup') return [{ mountPoint, kind: 'v1', options: superOptions.split(',') }];
    return [];
  });
}

/** This process's cgroup per v1 controller, and its v2 cgroup under `''`. */
function ownCgroups(): Map<string, string> {
  const own = new Map<string, string>();
  try {
    for (const line of readFileSync('/proc/self/cgroup', 'utf8').trim().split('\n')) {
      const [, controllers, path] = line.split(':');
      for (const controller of controllers!.split(',')) own.set(controller, path ?? '/');
    }
  } catch {
    // No cgroups here.
  }
  return own;
}

function enabled(dir: string): string[] {
  try {
    return readFileSync(join(dir, 'cgroup.subtree_control'), 'utf8').trim().split(/\s+/);
  } catch {
    return [];
  }
}

/**
 * Where the command cgroups go. v2: beside this process's cgroup (a cgroup with processes cannot give its
 * children controllers), when its parent hands out `pids`. v1: under this process's cgroup in the `pids` and
 * the `memory` hierarchies.
 */
function places(): Place[] {
  const own = ownCgroups();
  const mounted = hierarchies();
  const v2 = mounted.find((h) => h.kind === 'v2');
  const v2Path = own.get('');
  if (v2 && v2Path !== undefined) {
    const parent = join(v2.mountPoint, v2Path === '/' ? '/' : dirname(v2Path));
    const controllers = enabled(parent);
    if (controllers.includes('pids')) {
      const memory = controllers.includes('memory');
      return [
        {
          parent,
          files: (l) => ({
            'pids.max': String(l.processes),
            ...(memory ? { 'memory.max': String(l.memoryBytes), 'memory.swap.max': '0' } : {}),
          }),
        },
      ];
    }
  }
  const v1 = (controller: string, files: Place['files']): Place[] => {
    const hierarchy = mounted.find((h) => h.kind === 'v1' && h.options.includes(controller));
    const path = own.get(controller);
    return hierarchy && path !== undefined ? [{ parent: join(hierarchy.mountPoint, path), files }] : [];
  };
  const pids = v1('pids', (l) => ({ 'pids.max': String(l.processes) }));
  return pids.length === 0
    ? []
    : [...pids, ...v1('memory', (l) => ({ 'memory.limit_in_bytes': String(l.memoryBytes) }))];
}

let usable: Place[] | undefined;

/** The pid of the process that made a command cgroup, from its name (`tern-exec-<pid>-<random>`). */
function ownerOf(name: string): number | undefined {
  const pid = Number(/^tern-exec-(?:probe-)?(\d+)(?:-|$)/.exec(name)?.[1]);
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes the empty command cgroups a process that crashed left behind. Only those whose maker is gone: another Tern
 * process (a gateway beside `tern agent`) makes its cgroup empty and moves the command in a moment later, and
 * removing it in between made that move fail (ENODEV).
 */
function sweep(parent: string): void {
  try {
    for (const name of readdirSync(parent)) {
      if (!name.startsWith(PREFIX)) continue;
      const owner = ownerOf(name);
      if (owner !== undefined && alive(owner)) continue;
      tryRemove(join(parent, name));
    }
  } catch {
    // Nothing to sweep.
  }
}

function holdsProcesses(dir: string): boolean {
  try {
    return readFileSync(join(dir, 'cgroup.procs'), 'utf8').trim() !== '';
  } catch {
    return false;
  }
}

function tryRemove(dir: string): boolean {
  try {
    rmdirSync(dir);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT';
  }
}

/** Whether command cgroups can be made here, found out once per process by making one. */
export function cgroupsUsable(): boolean {
  if (usable) return usable.length > 0;
  usable = [];
  const candidates = places();
  for (const place of candidates) sweep(place.parent);
  const probe = candidates.map((place) => join(place.parent, `${PREFIX}probe-${process.pid}`));
  try {
    for (const dir of probe) mkdirSync(dir);
    usable = candidates;
  } catch {
    // Not ours to change (a normal user, a read-only cgroupfs in a container).
  } finally {
    for (const dir of probe) tryRemove(dir);
  }
  return usable.length > 0;
}

/** The cgroups of one command: made with its limits, joined by its first process, removed once it is empty. */
export class CommandCgroup {
  private constructor(
    private readonly name: string,
    private readonly dirs: string[],
  ) {}

  static create(limits: CgroupLimits): CommandCgroup | undefined {
    if (!cgroupsUsable()) return undefined;
    const name = `${PREFIX}${process.pid}-${randomBytes(6).toString('hex')}`;
    const dirs: string[] = [];
    try {
      for (const place of usable!) {
        const dir = join(place.parent, name);
        mkdirSync(dir);
        dirs.push(dir);
        for (const [file, value] of Object.entries(place.files(limits))) writeFileSync(join(dir, file), value);
      }
      return new CommandCgroup(name, dirs);
    } catch (error) {
      new CommandCgroup(name, dirs).remove();
      throw error;
    }
  }

  /**
   * Moves `pid` in; what it starts from then on is inside too. The kernel takes tens of milliseconds per move
   * (it waits for an RCU grace period), so the moves run side by side.
   */
  async join(pid: number): Promise<void> {
    await Promise.all(this.dirs.map((dir) => writeFile(join(dir, 'cgroup.procs'), String(pid))));
  }

  /** Whether `pid` is inside in every hierarchy. */
  holds(pid: number): boolean {
    try {
      const lines = readFileSync(`/proc/${pid}/cgroup`, 'utf8').trim().split('\n');
      return lines.filter((line) => line.endsWith(`/${this.name}`)).length === this.dirs.length;
    } catch {
      return false;
    }
  }

  /**
   * Resolves once no process is left inside, or after `limitMs`. When a sandbox's first process exits, the kernel
   * kills the rest of its PID namespace, and bubblewrap may exit before they are gone: a fork loop's hundreds of
   * processes took longer to go than the output took to drain, and were still there when the call returned.
   */
  async emptied(limitMs: number): Promise<void> {
    const deadline = Date.now() + limitMs;
    while (this.dirs.some(holdsProcesses) && Date.now() < deadline) await sleep(10);
  }

  /** Removes the cgroups once the kernel has taken the last process out (a PID namespace ends a moment later). */
  remove(): void {
    const left = this.dirs.filter((dir) => !tryRemove(dir));
    if (left.length === 0) return;
    let tries = 0;
    const timer = setInterval(() => {
      const still = left.filter((dir) => !tryRemove(dir));
      if (still.length === 0 || ++tries >= 100) clearInterval(timer);
      left.splice(0, left.length, ...still);
    }, 50);
    timer.unref();
  }
}
