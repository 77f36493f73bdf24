import { formatPath } from './problems.js';
import { isSecret } from './secret.js';

function isPlain(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !isSecret(value);
}

/** Leaves compare by value; a secret by its real value, since two keys can share a masked form. */
function same(a: unknown, b: unknown): boolean {
  if (isSecret(a) || isSecret(b)) return isSecret(a) && isSecret(b) && a.reveal() === b.reveal();
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, i) => same(item, b[i]));
  if (isPlain(a) && isPlain(b)) return changedPaths(a, b).length === 0;
  return a === b;
}

/**
 * Paths whose values differ between two configs, as deep as objects go (lists compare whole), e.g.
 * `heartbeat.interval` or `model_list`. Only paths are returned, never values, so secrets stay put.
 */
export function changedPaths(before: unknown, after: unknown, path: string[] = []): string[] {
  if (isPlain(before) && isPlain(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])];
    return keys.flatMap((key) => changedPaths(before[key], after[key], [...path, key]));
  }
  return same(before, after) ? [] : [formatPath(path)];
}
