import { existsSync, lstatSync, readlinkSync, realpathSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';

/** Linux gives up after 40 links; so do we, and call it a loop. */
const MAX_LINKS = 40;

export class SymlinkLoopError extends Error {
  readonly code = 'ELOOP';
}

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/**
 * The real location of `path`, following every symlink, also for a path that does not exist yet
 * (a file about to be written through a dangling link must land where the link points, so that is
 * where it is checked).
 */
export function resolveReal(path: string): string {
  const absolute = resolve(path);
  let existing = absolute;
  while (!existsSync(existing)) {
    const parent = dirname(existing);
    if (parent === existing) break;
    existing = parent;
  }
  // A missing path (or a link loop, which does not exist either) is walked link by link from
  // its deepest existing ancestor, the only part realpath can answer for.
  const base = existsSync(existing) ? realpathSync.native(existing) : sep;
  return existing === absolute ? base : walk(base, relative(existing, absolute), absolute);
}

/**
 * Where the kernel would land for `path` (relative to `cwd`): `..` steps out of the folder a link led into,
 * not back along the text, so `sub/up/../x` through a linked `up` leaves the workspace when `up` points out.
 */
export function resolvePhysical(cwd: string, path: string): string {
  const whole = isAbsolute(path) ? path : `${cwd}${sep}${path}`;
  return walk(sep, whole, whole);
}

function walk(start: string, rest: string, absolute: string): string {
  const pending = rest.split(sep).filter(Boolean);
  let current = start;
  let links = 0;
  while (pending.length > 0) {
    const segment = pending.shift()!;
    if (segment === '.') continue;
    if (segment === '..') {
      current = resolve(current, '..');
      continue;
    }
    const next = join(current, segment);
    let stats;
    try {
      stats = lstatSync(next, { throwIfNoEntry: false });
    } catch (error) {
      if (!isMissing(error)) throw error;
    }
    if (!stats) return resolve(next, ...pending);
    if (!stats.isSymbolicLink()) {
      current = next;
      continue;
    }
    if (++links > MAX_LINKS) throw new SymlinkLoopError(absolute);
    const target = readlinkSync(next);
    if (isAbsolute(target)) current = sep;
    pending.unshift(...target.split(sep).filter(Boolean));
  }
  return current;
}

/** True when `path` is `root` or below it. Both must be absolute and normalized. */
export function isWithin(path: string, root: string): boolean {
  if (path === root) return true;
  const prefix = root.endsWith(sep) ? root : root + sep;
  return path.startsWith(prefix);
}
