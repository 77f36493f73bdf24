import { createHash } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Server } from 'node:net';
import type { RootDatabase, RootDatabaseOptions } from 'lmdb';
import { bindSocketLock } from './socket-lock.js';

/**
 * lmdb through its CommonJS build (its `require` entry): Node's CommonJS loader reads lmdb's one bundled file, where
 * its ES module entry is a tree of a dozen modules, each resolved, linked and compiled at every start.
 */
const lmdb = createRequire(import.meta.url)('lmdb') as typeof import('lmdb');

/**
 * Opens and closes lmdb environments one at a time across the processes of this machine.
 *
 * On Linux lmdb keeps robust mutexes in `lock.mdb`. The last process to close an environment takes the lock file's
 * `fcntl` lock exclusively and destroys them. A process opening at that moment cannot take the lock exclusively, so
 * it waits for a shared one and, once it has it, takes the mutexes as set up: they are not, and every transaction of
 * that process fails with "Invalid argument". lmdb-js keeps the failed environment, so opening again in the same
 * process fails too, and each later opener meets the same destroyed mutexes while that process holds its lock.
 *
 * The guard is a socket lock in the abstract namespace (`socket-lock.ts`), as the writer lock is: the kernel
 * releases it however its process ends. Elsewhere lmdb uses semaphores that a close does not destroy.
 */
const GUARDED = process.platform === 'linux';
/** A holder stuck longer than this (stopped with SIGSTOP, say) is not waited for: the open goes ahead unguarded. */
const WAIT_MS = 5000;

const held = new Map<string, { server: Server; count: number }>();
const guardKeys = new WeakMap<RootDatabase, string>();
const pause = new Int32Array(new SharedArrayBuffer(4));

function guardAddress(path: string): string {
  let real = path;
  try {
    real = realpathSync(path);
  } catch {
    // Not made yet: lmdb makes it, and every process names it the same way until then.
  }
  return `\0tern-lmdb-${createHash('sha256').update(real).digest('hex').slice(0, 32)}`;
}

/** Waits (blocking: lmdb opens synchronously) until this process holds the guard of `address`; returns its release. */
function acquire(address: string): () => void {
  if (!GUARDED) return () => undefined;
  const release = () => {
    const mine = held.get(address);
    if (!mine || --mine.count > 0) return;
    held.delete(address);
    mine.server.close();
  };
  const mine = held.get(address);
  if (mine) {
    mine.count++;
    return release;
  }
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const server = bindSocketLock(address);
    if (server) {
      held.set(address, { server, count: 1 });
      return release;
    }
    if (Date.now() > deadline) return () => undefined;
    Atomics.wait(pause, 0, 0, 1);
  }
}

export function openEnvironment(options: RootDatabaseOptions & { path: string }): RootDatabase {
  const address = guardAddress(options.path);
  const release = acquire(address);
  try {
    const root = lmdb.open(options);
    guardKeys.set(root, address);
    return root;
  } finally {
    release();
  }
}

/**
 * Closes `root` (opened by `openEnvironment`); the guard is held until lmdb has closed it, which waits for its writes
 * to be committed.
 */
export function closeEnvironment(root: RootDatabase): Promise<void> {
  const address = guardKeys.get(root);
  const release = address === undefined ? () => undefined : acquire(address);
  let closing: Promise<void>;
  try {
    closing = Promise.resolve(root.close());
  } catch (error) {
    release();
    throw error;
  }
  return closing.finally(release);
}
