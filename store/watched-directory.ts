import { watch, type FSWatcher, type Stats } from 'node:fs';
import { basename, dirname } from 'node:path';
import { statOf } from './stat.js';

/** How long a cached look is trusted without a `stat` while no change was signalled: the bound on staleness. */
export const RECHECK_MS = 2000;

export interface WatchOptions {
  /** `false`: never watch, so every look stats (the path taken wherever watching is not possible). */
  watch?: boolean;
  /** Milliseconds on a monotonic clock. */
  now?: () => number;
}

/** What is watched: the directory itself, or its parent while the directory is missing (to see it appear). */
interface Watch {
  watcher: FSWatcher;
  parent: boolean;
  dev: number;
  ino: number;
}

/**
 * A directory whose entries may be served from a cache while it is watched. `version()` changes whenever an entry
 * may have changed: a change signalled by `fs.watch` (inotify), the directory itself deleted, replaced or created, or
 * `RECHECK_MS` passed (file systems where inotify never fires: network and some container mounts). A missing
 * directory is watched through its parent until it appears. `version()` is undefined while nothing can be watched
 * (the parent missing too, `fs.watch` refused or failed): callers then stat, as without a watch. Watching starts at
 * the first look after `RECHECK_MS`, so a directory looked at once never opens a watcher, and a failed watch is
 * tried again every `RECHECK_MS`. The watcher never keeps the process alive.
 */
export class WatchedDirectory {
  private generation = 0;
  private watch: Watch | undefined;
  private checkedAt: number;
  /** A change that may be the directory itself going away or appearing: a watch of the old one would go silent. */
  private recheckDue = false;
  private readonly name: string;

  constructor(
    readonly path: string,
    private readonly options: Required<WatchOptions>,
  ) {
    this.checkedAt = options.now();
    this.name = basename(path);
  }

  version(): number | undefined {
    if (!this.options.watch) return undefined;
    if (this.recheckDue || this.options.now() - this.checkedAt >= RECHECK_MS) this.recheck();
    return this.watch ? this.generation : undefined;
  }

  close(): void {
    this.watch?.watcher.close();
    this.watch = undefined;
  }

  private recheck(): void {
    this.checkedAt = this.options.now();
    this.recheckDue = false;
    this.generation++;
    const own = statOf(this.path);
    const parent = own?.isDirectory() ? undefined : dirname(this.path);
    const stats = parent === undefined ? own : statOf(parent);
    const watch = this.watch;
    if (watch && watch.parent === (parent !== undefined) && stats?.dev === watch.dev && stats.ino === watch.ino) return;
    this.close();
    if (stats?.isDirectory()) this.start(parent ?? this.path, parent !== undefined, stats);
  }

  private start(path: string, parent: boolean, stats: Stats): void {
    try {
      const watcher = watch(path, { persistent: false }, (event, name) => this.changed(event, name));
      watcher.on('error', () => {
        if (this.watch?.watcher === watcher) this.close();
      });
      this.watch = { watcher, parent, dev: stats.dev, ino: stats.ino };
    } catch {
      // The watch limit (ENOSPC) or a refusal (EPERM): looks stat, and the watch is tried again after RECHECK_MS.
    }
  }

  private changed(event: string, name: string | null): void {
    if (this.watch?.parent) {
      // In the parent only the directory's own name matters: it was created or renamed into place.
      if (name !== null && name !== this.name) return;
      this.recheckDue = true;
    } else if (event === 'rename') {
      this.recheckDue = true;
    }
    this.generation++;
  }
}

/** The watched directories of one owner, one per path; `close()` ends every watch. */
export class DirectoryWatches {
  private readonly dirs = new Map<string, WatchedDirectory>();
  private readonly options: Required<WatchOptions>;

  constructor(options: WatchOptions = {}) {
    this.options = { watch: options.watch ?? true, now: options.now ?? (() => performance.now()) };
  }

  dir(path: string): WatchedDirectory {
    let dir = this.dirs.get(path);
    if (!dir) {
      dir = new WatchedDirectory(path, this.options);
      this.dirs.set(path, dir);
    }
    return dir;
  }

  /** Ends the watches of the directories not in `used` (skill folders that went away). */
  keepOnly(used: Set<WatchedDirectory>): void {
    for (const [path, dir] of this.dirs) {
      if (used.has(dir)) continue;
      dir.close();
      this.dirs.delete(path);
    }
  }

  close(): void {
    this.keepOnly(new Set());
  }
}

/** What one look at a path found: its directory's watch version, then the path's modification time and size. */
export interface PathLook {
  dir: WatchedDirectory;
  path: string;
  version: number | undefined;
  mtimeMs: number;
  size: number;
}

/**
 * Looks at `path` in `dir`: the version is taken before the `stat`, so a change during the look is seen at the next.
 */
export function lookAt(dir: WatchedDirectory, path: string): { look: PathLook; stats: Stats | undefined } {
  const version = dir.version();
  const stats = statOf(path);
  return { look: { dir, path, version, mtimeMs: stats?.mtimeMs ?? -1, size: stats?.size ?? -1 }, stats };
}

/** Whether the path is as the look found it: no `stat` while its watched directory signalled nothing. */
export function unchanged(look: PathLook): boolean {
  const version = look.dir.version();
  if (version !== undefined && version === look.version) return true;
  const stats = statOf(look.path);
  if ((stats?.mtimeMs ?? -1) !== look.mtimeMs || (stats?.size ?? -1) !== look.size) return false;
  look.version = version;
  return true;
}
