import type * as z from 'zod';

type Issue = z.core.$ZodIssue;
type RawIssue = z.core.$ZodRawIssue;

/** A value as an error message shows it: text quoted, objects and lists by kind. */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'string') return JSON.stringify(value);
  return typeof value === 'object' ? 'an object' : String(value);
}

const KIND_NAMES: Record<string, string> = {
  object: 'an object',
  record: 'an object',
  array: 'a list',
  string: 'a string',
  number: 'a number',
  boolean: 'a boolean',
};

/** What a value is, without showing it: for files where every value may be a secret. */
export function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  return KIND_NAMES[typeof value] ?? typeof value;
}

/** Messages for schemas that carry none of their own (objects, records, literals). */
export function configErrorMap(issue: RawIssue): string | undefined {
  if (issue.code === 'invalid_type') {
    const expected = KIND_NAMES[issue.expected] ?? issue.expected;
    if (issue.input === undefined) return `is required (allowed: ${expected})`;
    return `${describeValue(issue.input)} is not ${expected} (allowed: ${expected})`;
  }
  if (issue.code === 'invalid_value') {
    return (
      `${describeValue(issue.input)} is not allowed (allowed: ` +
      `${issue.values.map((v) => JSON.stringify(v)).join(', ')})`
    );
  }
  return undefined;
}

/** Like `configErrorMap`, but a value is only ever named by its kind. */
export function secretErrorMap(issue: RawIssue): string | undefined {
  if (issue.code !== 'invalid_type') return undefined;
  const expected = KIND_NAMES[issue.expected] ?? issue.expected;
  return issue.input === undefined
    ? `is required (allowed: ${expected})`
    : `${kindOf(issue.input)} is not ${expected} (allowed: ${expected})`;
}

/** `model_list[0].api_keys[1]`: the way a person writes a path into a JSON file. */
export function formatPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((out, key) => {
    if (typeof key === 'number') return `${out}[${key}]`;
    const name = String(key);
    const safe = /^[A-Za-z_][\w-]*$/.test(name) ? name : JSON.stringify(name);
    return out === '' ? safe : `${out}.${safe}`;
  }, '');
}

/** The origin of the path or of the nearest enclosing path that has one. */
function originOf(path: string, origins: ReadonlyMap<string, string>): string | undefined {
  for (const [key, origin] of origins) {
    if (path === key || path.startsWith(`${key}.`) || path.startsWith(`${key}[`)) return origin;
  }
  return undefined;
}

/**
 * Every issue as `path: message (allowed: …)`. `origins` names where a value came from when it was not the
 * config file (an env variable, the credentials file), so the user edits the right place.
 */
export function formatIssues(issues: readonly Issue[], origins: ReadonlyMap<string, string> = new Map()): string[] {
  return issues.map((issue) => {
    const path = formatPath(issue.path);
    const origin = originOf(path, origins);
    const where = path === '' ? '(config)' : path;
    return `${origin ? `${where} (from ${origin})` : where}: ${issue.message}`;
  });
}
