import { chmodSync, closeSync, constants, existsSync, fstatSync, lstatSync, mkdirSync, openSync } from 'node:fs';
import { realpathSync } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';
import type { Stats } from 'node:fs';
import { UnsafePathError } from './unsafe-path.js';

const { O_DIRECTORY, O_NOFOLLOW, O_RDONLY } = constants;
/** Linux's O_PATH, which `fs.constants` lacks: a handle that names a folder without needing read access to it. */
const O_PATH = 0o10000000;
/**
 * Through `/proc/self/fd/N/name` the kernel looks `name` up in the folder held as N, wherever that folder has been
 * moved and whatever now lies at its old path: `openat(2)` for Node, which has no binding for it.
 */
const BY_HANDLE = process.platform === 'linux' && existsSync('/proc/self/fd');
const FOLDER = O_DIRECTORY | O_NOFOLLOW | (BY_HANDLE ? O_PATH : O_RDONLY);

const codeOf = (error: unknown): string | undefined => (error as NodeJS.ErrnoException).code;

/** Makes a missing folder with this mode (the umask still applies). */
export interface Create {
  mode: number;
}

/**
 * A folder held open by handle, so that names looked up in it are looked up in this very folder: a folder of the
 * path swapped for a symbolic link after the hold (a sandboxed command racing the runtime) changes nothing. Reached
 * from `/` one folder at a time without following any link; a link on the way is an `UnsafePathError`. Off Linux the
 * folders are checked by path (no handle), which narrows the race but cannot close it.
 */
export class HeldDirectory {
  private constructor(
    readonly path: string,
    private fd: number | undefined,
  ) {}

  /**
   * `path` (absolute, normalized) reached one folder at a time from `from`, a folder whose own path nothing untrusted
   * can change (`/`, or a real path the runtime was given, such as the workspace): below `from` no link is followed.
   * With `create`, missing folders are made on the way.
   */
  static open(path: string, create?: Create, from: string = sep): HeldDirectory {
    const rest = relative(from, path);
    if (rest.startsWith('..') || isAbsolute(rest)) throw new Error(`${path} is not below ${from}`);
    if (!BY_HANDLE) return new HeldDirectory(checkedBelow(from, rest, create), undefined);
    let fd = openSync(from, O_DIRECTORY | O_PATH);
    let reached = from;
    try {
      for (const name of rest.split(sep).filter(Boolean)) {
        reached = join(reached, name);
        const next = openFolder(`/proc/self/fd/${fd}/${name}`, reached, create);
        closeSync(fd);
        fd = next;
      }
    } catch (error) {
      closeSync(fd);
      throw error;
    }
    return new HeldDirectory(path, fd);
  }

  /**
   * A folder the runtime was told about (the workspace, `AGENT_HOME`): links in its own path are the owner's
   * choice and are resolved first; only below it is every link refused. `create` makes it when missing.
   */
  static openTrusted(path: string, create?: Create): HeldDirectory {
    if (create) mkdirSync(path, { recursive: true, mode: create.mode });
    const real = realpathSync.native(path);
    const held = HeldDirectory.open(real, undefined, real);
    // Named as given, for messages; held as found.
    return new HeldDirectory(path, held.fd);
  }

  /** A folder in this one, held the same way. */
  child(name: string, create?: Create): HeldDirectory {
    const path = join(this.path, name);
    if (this.fd === undefined) return new HeldDirectory(checkedFolder(path, create), undefined);
    return new HeldDirectory(path, openFolder(this.at(name), path, create));
  }

  /** A path that names `name` in this very folder (one name, no `/`). */
  at(name: string): string {
    return this.fd === undefined ? join(this.path, name) : `/proc/self/fd/${this.fd}/${name}`;
  }

  /** A path that names this very folder (to list it). */
  get self(): string {
    return this.fd === undefined ? this.path : `/proc/self/fd/${this.fd}`;
  }

  /**
   * Takes the `clear` bits off the mode of `name` here without following a link: through a handle that only names
   * the entry. Links and special files are left alone. With `look`, only says what it would change.
   */
  restrictMode(name: string, clear: number, look = false): ModeChange | undefined {
    if (this.fd === undefined) {
      const stats = lstatSync(this.at(name), { throwIfNoEntry: false });
      return stats ? changeMode(stats, clear, look, (to) => chmodSync(this.at(name), to)) : undefined;
    }
    let fd: number;
    try {
      fd = openSync(this.at(name), O_PATH | O_NOFOLLOW);
    } catch (error) {
      if (codeOf(error) === 'ENOENT') return undefined;
      throw error;
    }
    try {
      return changeMode(fstatSync(fd), clear, look, (to) => chmodSync(`/proc/self/fd/${fd}`, to));
    } finally {
      closeSync(fd);
    }
  }

  close(): void {
    if (this.fd === undefined) return;
    closeSync(this.fd);
    this.fd = undefined;
  }
}

export interface ModeChange {
  from: number;
  to: number;
}

function changeMode(stats: Stats, clear: number, look: boolean, chmod: (to: number) => void): ModeChange | undefined {
  if (!stats.isFile() && !stats.isDirectory()) return undefined;
  const from = stats.mode & 0o7777;
  if ((from & clear) === 0) return undefined;
  const to = from & ~clear;
  if (!look) chmod(to);
  return { from, to };
}

/** Opens one folder by a handle path; a link there is refused, a file there is ENOTDIR as usual. */
function openFolder(at: string, shown: string, create: Create | undefined): number {
  try {
    return openSync(at, FOLDER);
  } catch (error) {
    const code = codeOf(error);
    if (code === 'ENOENT' && create) {
      try {
        mkdirSync(at, { mode: create.mode });
      } catch (made) {
        if (codeOf(made) !== 'EEXIST') throw made;
      }
      return openFolder(at, shown, undefined);
    }
    if ((code === 'ENOTDIR' || code === 'ELOOP') && lstatSync(at, { throwIfNoEntry: false })?.isSymbolicLink()) {
      throw new UnsafePathError('link', shown);
    }
    throw error;
  }
}

function checkedBelow(from: string, rest: string, create: Create | undefined): string {
  let reached = from;
  for (const name of rest.split(sep).filter(Boolean)) checkedFolder((reached = join(reached, name)), create);
  return reached;
}

function checkedFolder(path: string, create: Create | undefined): string {
  let stats = lstatSync(path, { throwIfNoEntry: false });
  if (!stats && create) {
    try {
      mkdirSync(path, { mode: create.mode });
    } catch (made) {
      if (codeOf(made) !== 'EEXIST') throw made;
    }
    stats = lstatSync(path);
  }
  if (!stats) throw Object.assign(new Error(`ENOENT: no such file or directory, '${path}'`), { code: 'ENOENT' });
  if (stats.isSymbolicLink()) throw new UnsafePathError('link', path);
  if (!stats.isDirectory()) throw Object.assign(new Error(`ENOTDIR: not a directory, '${path}'`), { code: 'ENOTDIR' });
  return path;
}
