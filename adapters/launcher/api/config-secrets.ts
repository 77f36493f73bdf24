import {
  hasMaskedUrlPassword,
  hasUrlPassword,
  isSecret,
  maskUrlPassword,
  Secret,
} from '../../../store/config/index.js';
import type { Config } from '../../../store/config/index.js';
import type { JsonSchema } from '../../../bus/api-shapes.js';

type Path = Array<string | number>;
type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/**
 * Paths of every secret in the file: keys, tokens and passwords as the parsed config has them, and each URL with a
 * password wherever it is written (a proxy, a cluster server, an API root; also when the file does not parse).
 * A file that does not validate has no parsed secrets: there every string (or list of strings) under a key the
 * schema marks write-only anywhere (`secretNames`) counts as one, so a typo elsewhere never unmasks a key.
 */
export function secretPaths(raw: Json, config: Config | undefined, names: ReadonlySet<string>): Path[] {
  const found = new Map<string, Path>();
  const walk = (value: unknown, path: Path, isOne: (value: unknown) => boolean): void => {
    if (isOne(value)) found.set(path.join('\u0000'), path);
    else if (Array.isArray(value)) value.forEach((item, index) => walk(item, [...path, index], isOne));
    else if (value && typeof value === 'object' && !isSecret(value))
      for (const [key, child] of Object.entries(value)) walk(child, [...path, key], isOne);
  };
  if (config) walk(config, [], isSecret);
  else walkNamed(raw, [], names, (path) => found.set(path.join('\u0000'), path));
  walk(raw, [], (value) => typeof value === 'string' && hasUrlPassword(value));
  return [...found.values()];
}

function walkNamed(value: Json, path: Path, names: ReadonlySet<string>, found: (path: Path) => void): void {
  if (Array.isArray(value)) value.forEach((item, index) => walkNamed(item, [...path, index], names, found));
  else if (value && typeof value === 'object')
    for (const [key, child] of Object.entries(value)) {
      if (!names.has(key)) walkNamed(child, [...path, key], names, found);
      else if (typeof child === 'string') found([...path, key]);
      else if (Array.isArray(child))
        child.forEach((item, index) => typeof item === 'string' && found([...path, key, index]));
    }
}

/** Names of the properties a JSON Schema marks write-only (a secret, or a list of secrets), at any depth. */
export function secretNames(schemas: JsonSchema[]): Set<string> {
  const names = new Set<string>();
  const isSecretNode = (node: JsonSchema | undefined) => node?.writeOnly === true || node?.items?.writeOnly === true;
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(visit);
    else if (node && typeof node === 'object') {
      const { properties } = node as JsonSchema;
      for (const [name, child] of Object.entries(properties ?? {})) if (isSecretNode(child)) names.add(name);
      Object.values(node).forEach(visit);
    }
  };
  schemas.forEach(visit);
  return names;
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

/** A URL keeps its scheme, user and host with the password masked; any other secret becomes its mask. */
function maskOf(value: string): string {
  return hasUrlPassword(value) ? maskUrlPassword(value) : new Secret(value).masked;
}

/** A copy of the file's JSON with each secret replaced by its mask: what the browser may see. */
export function maskRaw(raw: Json, paths: Path[]): Json {
  const copy = structuredClone(raw);
  for (const path of paths) {
    const value = at(copy, path);
    if (typeof value === 'string') put(copy, path, maskOf(value));
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
    const mask = maskOf(value);
    byMask.set(mask, (byMask.get(mask) ?? new Set()).add(value));
  }
  const copy = structuredClone(incoming);
  const unknown: UnknownMask[] = [];
  const walk = (value: Json, path: Path): void => {
    if (typeof value === 'string') {
      const saved = byMask.get(value);
      if (!saved) {
        if (hasMaskedUrlPassword(value)) unknown.push({ path });
        return;
      }
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
