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

/**
 * The browser never holds a secret, so a secret it sends back still masked means "keep the current one":
 * each such field gets the current value again. Anything else it sends is a new value and is kept.
 */
export function restoreMasked(incoming: Json, current: Json, paths: Path[]): Json {
  const copy = structuredClone(incoming);
  for (const path of paths) {
    const was = at(current, path);
    if (typeof was === 'string' && at(copy, path) === new Secret(was).masked) put(copy, path, was);
  }
  return copy;
}

export type { Json };
