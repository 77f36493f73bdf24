import { closeSync, constants, readSync, renameSync, rmSync, writeSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { HeldDirectory } from '../files/held-directory.js';
import { openRegular, writeAtomic } from '../files/regular-file.js';
import { UnsafePathError } from '../files/unsafe-path.js';

const { O_APPEND, O_CREAT, O_EXCL, O_RDONLY, O_WRONLY } = constants;

export interface RotationSettings {
  maxBytes: number;
  /** Numbered archives kept (`file.1` newest); 0 keeps none. */
  backups: number;
}

/** Said once when a log cannot be written safely (a link or a FIFO planted where it should be). */
export type LogProblem = (problem: string) => void;

const codeOf = (error: unknown): string | undefined => (error as NodeJS.ErrnoException).code;

/**
 * Keeps the newest `maxBytes` of `name` in the held folder, from a line boundary so no line is cut in half. A link
 * there is never followed (its target is never cut); the shortened log replaces the file whole, 0600.
 */
function trimHeld(dir: HeldDirectory, name: string, maxBytes: number): void {
  let opened;
  try {
    opened = openRegular(dir, name, O_RDONLY);
  } catch (error) {
    if (codeOf(error) === 'ENOENT') return;
    throw error;
  }
  try {
    const { size } = opened.stats;
    if (size <= maxBytes) return;
    const tail = Buffer.alloc(maxBytes);
    let read = 0;
    while (read < maxBytes) {
      const got = readSync(opened.fd, tail, read, maxBytes - read, size - maxBytes + read);
      if (got === 0) break;
      read += got;
    }
    const kept = tail.subarray(0, read);
    const newline = kept.indexOf(0x0a);
    writeAtomic(dir, name, newline >= 0 ? kept.subarray(newline + 1) : kept, 0o600);
  } finally {
    closeSync(opened.fd);
  }
}

/** Keeps the newest `maxBytes` of a log file (the panic log at start); a link there is left alone. */
export function trimToLatest(path: string, maxBytes: number): void {
  const dir = HeldDirectory.openTrusted(dirname(path), { mode: 0o700 });
  try {
    trimHeld(dir, basename(path), maxBytes);
  } catch (error) {
    if (!(error instanceof UnsafePathError)) throw error;
  } finally {
    dir.close();
  }
}

/**
 * An append-only log file rotated by size: when a line would take it past `maxBytes`, `file` becomes
 * `file.1`, `file.1` becomes `file.2`, … and archives past `backups` are deleted. Writes are synchronous so a
 * crash right after a line still leaves it on disk. The file may lie where a sandboxed command can write (the
 * workspace's `heartbeat.log`): it is opened through its held folder, never through a link, only as a regular
 * file, and made anew exclusively after a rotation; anything else there is reported once and the log is not written.
 */
export class RotatingFile {
  /** Undefined once closed: the number may already belong to a file opened since (the event log's, say). */
  private fd: number | undefined;
  private size = 0;
  private readonly dir: HeldDirectory;
  private readonly name: string;

  constructor(
    readonly path: string,
    private readonly settings: RotationSettings,
    private readonly problem: LogProblem = () => undefined,
  ) {
    // Logs hold what chats said: a folder this creates is the owner's alone.
    this.dir = HeldDirectory.openTrusted(dirname(path), { mode: 0o700 });
    this.name = basename(path);
    this.open(() => {
      trimHeld(this.dir, this.name, settings.maxBytes);
      return openRegular(this.dir, this.name, O_WRONLY | O_APPEND | O_CREAT, 0o600);
    });
  }

  /** A line written after `close()` is dropped: writing it would land in whatever file now has that descriptor. */
  write(line: string): void {
    if (this.fd === undefined) return;
    const bytes = Buffer.from(line.endsWith('\n') ? line : `${line}\n`);
    if (this.size > 0 && this.size + bytes.length > this.settings.maxBytes) {
      this.rotate();
      if (this.fd === undefined) return;
    }
    writeSync(this.fd, bytes);
    this.size += bytes.length;
  }

  close(): void {
    this.dir.close();
    if (this.fd === undefined) return;
    closeSync(this.fd);
    this.fd = undefined;
  }

  private open(how: () => { fd: number; stats: { size: number } }): void {
    try {
      const opened = how();
      this.fd = opened.fd;
      this.size = opened.stats.size;
    } catch (error) {
      if (!(error instanceof UnsafePathError) && codeOf(error) !== 'EEXIST') throw error;
      const why = error instanceof UnsafePathError ? error.message : `${this.path} appeared while being made anew`;
      this.problem(`${why}: this log is not written until it is a regular file again and the gateway restarts`);
    }
  }

  private rotate(): void {
    closeSync(this.fd!);
    this.fd = undefined;
    const { backups } = this.settings;
    const at = (n: number) => this.dir.at(n === 0 ? this.name : `${this.name}.${n}`);
    try {
      // Renaming or removing an entry never follows it, whatever was planted among the archives.
      rmSync(at(backups), { force: true });
      for (let n = backups - 1; n >= 0; n--) {
        try {
          renameSync(at(n), at(n + 1));
        } catch (error) {
          if (codeOf(error) !== 'ENOENT') throw error;
        }
      }
    } catch (error) {
      const reason = (error as Error).message;
      this.problem(`${this.path} could not be rotated (${reason}): this log is not written until the gateway restarts`);
      return;
    }
    this.open(() => openRegular(this.dir, this.name, O_WRONLY | O_APPEND | O_CREAT | O_EXCL, 0o600));
  }
}
