/** A config as read from disk, before validation: plain JSON objects. */
export type RawObject = Record<string, unknown>;

export function isRecord(value: unknown): value is RawObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The object at `path`, created on the way when missing or not an object. */
export function objectAt(root: RawObject, path: readonly string[]): RawObject {
  let node = root;
  for (const key of path) {
    const next = node[key];
    if (!isRecord(next)) node[key] = {};
    node = node[key] as RawObject;
  }
  return node;
}

export function stringsOf(...values: unknown[]): string[] {
  const out: string[] = [];
  for (const value of values) {
    const items = Array.isArray(value) ? value : [value];
    for (const item of items) if (typeof item === 'string' && item !== '' && !out.includes(item)) out.push(item);
  }
  return out;
}

export function clone<T>(value: T): T {
  return structuredClone(value);
}
