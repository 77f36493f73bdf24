import { randomBytes } from 'node:crypto';
import { closeSync, constants, fstatSync, lstatSync, openSync, readFileSync } from 'node:fs';
import { renameSync, rmSync, writeSync } from 'node:fs';
import type { Stats } from 'node:fs';
import { join } from 'node:path';
import type { HeldDirectory } from './held-directory.js';
import { UnsafePathError } from './unsafe-path.js';

const { O_CREAT, O_EXCL, O_NOCTTY, O_NOFOLLOW, O_NONBLOCK, O_RDONLY, O_WRONLY } = constants;
/** On every open: a link is not followed, a FIFO cannot block the open, a terminal never becomes ours. */
const GUARDED = O_NOFOLLOW | O_NONBLOCK | O_NOCTTY;

const codeOf = (error: unknown): string | undefined => (error as NodeJS.ErrnoException).code;

function errno(code: string, path: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: ${path}`), { code, path });
}

/** Throws unless `stats` are a regular file's with one name: never a link, folder, FIFO, socket or device. */
export function checkRegular(stats: Stats, path: string): void {
  if (stats.isSymbolicLink()) throw new UnsafePathError('link', path);
  if (stats.isDirectory()) throw errno('EISDIR', path);
  if (!stats.isFile()) throw new UnsafePathError('special_file', path);
  if (stats.nlink > 1) throw new UnsafePathError('hard_link', path);
}

export interface OpenedFile {
  fd: number;
  stats: Stats;
}

/**
 * Opens `name` in the held folder only if it is a regular file with one link (or creates it, with `O_CREAT`). Never
 * pass `O_TRUNC`: it would act before the checks; truncate the returned descriptor instead.
 */
export function openRegular(dir: HeldDirectory, name: string, flags: number, mode = 0o666): OpenedFile {
  const at = dir.at(name);
  const shown = join(dir.path, name);
  // Also before the open: opening a device can act on it.
  const before = lstatSync(at, { throwIfNoEntry: false });
  if (before && (flags & O_EXCL) === 0) checkRegular(before, shown);
  let fd: number;
  try {
    fd = openSync(at, flags | GUARDED, mode);
  } catch (error) {
    const code = codeOf(error);
    if (code === 'ELOOP') throw new UnsafePathError('link', shown);
    // A socket, or a FIFO opened for writing while nobody reads it.
    if (code === 'ENXIO' || code === 'EOPNOTSUPP') throw new UnsafePathError('special_file', shown);
    throw error;
  }
  try {
    const stats = fstatSync(fd);
    checkRegular(stats, shown);
    return { fd, stats };
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

/** The bytes of `name` in the held folder; undefined when it does not exist. */
export function readRegular(dir: HeldDirectory, name: string): Buffer | undefined {
  let opened: OpenedFile;
  try {
    opened = openRegular(dir, name, O_RDONLY);
  } catch (error) {
    if (codeOf(error) === 'ENOENT') return undefined;
    throw error;
  }
  try {
    return readFileSync(opened.fd);
  } finally {
    closeSync(opened.fd);
  }
}

/**
 * Replaces `name` in the held folder whole, so a crash never leaves half a file: the bytes go to a new file with a
 * name nobody can guess (created exclusively, so nothing planted is opened), which is then renamed over `name`. A
 * link or anything but a regular file at `name` is refused and left as it is.
 */
export function writeAtomic(dir: HeldDirectory, name: string, data: string | Buffer, mode = 0o600): void {
  const existing = lstatSync(dir.at(name), { throwIfNoEntry: false });
  if (existing?.isSymbolicLink()) throw new UnsafePathError('link', join(dir.path, name));
  if (existing && !existing.isFile()) throw new UnsafePathError('special_file', join(dir.path, name));
  const temp = `.${name}.${randomBytes(12).toString('hex')}.tmp`;
  const fd = openSync(dir.at(temp), O_WRONLY | O_CREAT | O_EXCL | GUARDED, mode);
  try {
    try {
      writeAll(fd, typeof data === 'string' ? Buffer.from(data) : data, 0);
    } finally {
      closeSync(fd);
    }
    renameSync(dir.at(temp), dir.at(name));
  } catch (error) {
    rmSync(dir.at(temp), { force: true });
    throw error;
  }
}

/** Writes every byte of `bytes` at `position` (a regular file may take a large write in parts). */
export function writeAll(fd: number, bytes: Buffer, position: number): void {
  for (let done = 0; done < bytes.length; ) done += writeSync(fd, bytes, done, bytes.length - done, position + done);
}

/**
 * The text of a file the user owns and may have linked from elsewhere (a prompt file): links are followed, but only a
 * regular file is read, so a FIFO or device put in its place can never hang the process. Undefined when missing or
 * not a regular file.
 */
export function readUserText(path: string): string | undefined {
  let fd: number;
  try {
    fd = openSync(path, O_RDONLY | O_NONBLOCK | O_NOCTTY);
  } catch (error) {
    if (codeOf(error) === 'ENOENT' || codeOf(error) === 'ENXIO' || codeOf(error) === 'ENOTDIR') return undefined;
    throw error;
  }
  try {
    return fstatSync(fd).isFile() ? readFileSync(fd, 'utf8') : undefined;
  } finally {
    closeSync(fd);
  }
}
