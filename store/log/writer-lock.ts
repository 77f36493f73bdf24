import { createHash } from 'node:crypto';
import { closeSync, constants, existsSync, realpathSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { HeldDirectory } from '../files/held-directory.js';
import { openRegular, readUserText, writeAtomic } from '../files/regular-file.js';
import { UnsafePathError } from '../files/unsafe-path.js';
import { LogError } from './errors.js';
import { bindSocketLock } from '../socket-lock.js';

/**
 * The lock is a listening socket, which the kernel closes when its process ends however it ends, so a lock
 * can never outlive its holder (kill -9, a crash) nor be claimed by a stranger whose PID happens to be written
 * somewhere. On Linux the socket lives in the abstract namespace, so nothing is left on disk. Elsewhere it is a
 * socket file in the log folder; a crash leaves that file behind, and the error says to remove it.
 */
const LMDB_FILES = ['data.mdb', 'lock.mdb'];

function lockAddress(dir: string): string {
  if (process.platform !== 'linux') return join(dir, 'writer.sock');
  const id = createHash('sha256').update(realpathSync(dir)).digest('hex').slice(0, 32);
  return `\0tern-event-log-${id}`;
}

function holderOf(dir: string): string {
  try {
    const pid = (readUserText(join(dir, 'writer.pid')) ?? '').trim();
    return /^\d+$/.test(pid) ? `process ${pid}` : 'another process';
  } catch {
    return 'another process';
  }
}

/** One writer per log: `seq` is assigned in the writer's memory, so a second writer would reuse numbers. */
export function acquireWriterLock(dir: string): () => void {
  const address = lockAddress(dir);
  const server = bindSocketLock(address);
  if (!server) {
    const leftover = address.startsWith('\0') ? '' : ` (if it is not running, remove ${address})`;
    throw new LogError('log_locked', `the event log in ${dir} is being written by ${holderOf(dir)}${leftover}`);
  }
  try {
    prepareLogFolder(dir);
  } catch (error) {
    server.close();
    if (!(error instanceof UnsafePathError)) throw error;
    throw new LogError('log_unsafe', `the event log is not opened: ${error.message}`);
  }
  const held = server;
  return () => {
    held.close();
    rmSync(join(dir, 'writer.pid'), { force: true });
  };
}

/**
 * The log folder owner-only and the pid note written, through the folder held by handle, under a workspace folder
 * that may be shared with sandboxed commands: a link planted at the folder or at one of its files is refused, never
 * followed.
 */
function prepareLogFolder(dir: string): void {
  const workspace = HeldDirectory.openTrusted(dirname(dir));
  let folder: HeldDirectory;
  try {
    folder = workspace.child(basename(dir));
    workspace.restrictMode(basename(dir), 0o077);
  } finally {
    workspace.close();
  }
  try {
    for (const name of LMDB_FILES) checkedEntry(folder, name);
    // For people and error messages only: who holds the lock. The socket is the lock.
    writeAtomic(folder, 'writer.pid', String(process.pid));
  } finally {
    folder.close();
  }
}

/** An lmdb file lmdb is about to open: refused when it is a link or a special file. */
function checkedEntry(folder: HeldDirectory, name: string): void {
  try {
    closeSync(openRegular(folder, name, constants.O_RDONLY).fd);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

/**
 * lmdb creates its files 0644 (and cannot be told otherwise; made empty beforehand they would be opened by a reader
 * before lmdb wrote them, which crashes lmdb): the writer makes them 0600 once they exist. Never through a link.
 */
export function makeLogFilesPrivate(dir: string): void {
  try {
    const folder = HeldDirectory.openTrusted(dir);
    try {
      for (const name of LMDB_FILES) folder.restrictMode(name, 0o077);
    } finally {
      folder.close();
    }
  } catch {
    // Not ours to change (another owner's files): the 0700 folder around them still keeps others out.
  }
}

/**
 * `writer.pid` left in the log folder while no process holds the lock (it is a note for people, written beside the
 * lock): what a writer that died left behind. Empty while a writer holds the lock, or where the lock is a socket file
 * (off Linux), whose leftover the lock error names itself.
 */
export function staleLockFiles(dir: string): string[] {
  const note = join(dir, 'writer.pid');
  if (!existsSync(note) || process.platform !== 'linux') return [];
  const probe = bindSocketLock(lockAddress(dir));
  if (!probe) return [];
  probe.close();
  return [note];
}

/** Removes what `staleLockFiles` finds (never a lock a writer holds); returns what it removed. */
export function clearStaleLock(dir: string): string[] {
  const stale = staleLockFiles(dir);
  for (const path of stale) rmSync(path, { force: true });
  return stale;
}
