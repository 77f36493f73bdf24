import { isSecret, Secret } from '../../../store/config/index.js';
import type { Config } from '../../../store/config/index.js';

type Path = Array<string | number>;
type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Paths of every secret in a parsed config (keys, tokens, passwords). */
export function secretPaths(config: Config): Path[] {
  const found: Path[] = [];
  const walk = (value: unknown, path: Path): void => {
    if (isSecret(value)) found.push(path);
    else if (Array.isArray(value)) value.forEach((item, index) => walk(item, [...path, index]));
    else if (value && typeof value === 'object')
      for (const [key, child] of Object.entries(value)) walk(child, [...path, key]);
  };
  walk(config, []);
  return found;
}

function at(root: Json, path: Path): Json | undefined {
  let node: Json | undefined = root;
  for (const step of path) {
    if (node === null || typeof node !== 'object') return undefined;
    node = Array.isArray(node) ? (typeof step === 'number' ? node[step] : undefined) : node[String(step)];
  }
  return node;
}

function put(root: Json, path: Path, value: Json): void {
  const parent = at(root, path.slice(0, -1));
  const last = path[path.length - 1];
  if (parent === null || typeof parent !== 'object' || last === undefined) return;
  if (Array.isArray(parent)) {
    if (typeof last === 'number') parent[last] = value;
  } else parent[String(last)] = value;
}

/** A copy of the file's JSON with each secret replaced by its mask: what the browser may see. */
export function maskRaw(raw: Json, paths: Path[]): Json {
  const copy = structuredClone(raw);
  for (const path of paths) {
    const value = at(copy, path);
    if (typeof value === 'string') put(copy, path, new Secret(value).masked);
  }
  return copy;
}

/** A secret still masked where the browser sent it, with no saved secret it can stand for: the user must retype it. */
export type UnknownMask = { path: Path };

/**
 * The browser never holds a secret, so a mask it sends back means "keep the saved one": the secret at the same
 * path when its mask matches, else the one saved secret anywhere with that mask (an entry moved when one above it
 * was removed). A mask that fits none, or several, cannot be restored and is reported instead of being saved.
 */
export function restoreMasked(incoming: Json, current: Json, paths: Path[]): { config: Json; unknown: UnknownMask[] } {
  const byMask = new Map<string, Set<string>>();
  for (const path of paths) {
    const value = at(current, path);
    if (typeof value !== 'string') continue;
    const mask = new Secret(value).masked;
    byMask.set(mask, (byMask.get(mask) ?? new Set()).add(value));
  }
  const copy = structuredClone(incoming);
  const unknown: UnknownMask[] = [];
  const walk = (value: Json, path: Path): void => {
    if (typeof value === 'string') {
      const saved = byMask.get(value);
      if (!saved) return;
      const same = at(current, path);
      const found = typeof same === 'string' && saved.has(same) ? same : saved.size === 1 ? [...saved][0] : undefined;
      if (found === undefined) unknown.push({ path });
      else put(copy, path, found);
    } else if (Array.isArray(value)) value.forEach((item, index) => walk(item, [...path, index]));
    else if (value !== null && typeof value === 'object')
      for (const [key, child] of Object.entries(value)) walk(child, [...path, key]);
  };
  walk(copy, []);
  return { config: copy, unknown };
}

export type { Json };
