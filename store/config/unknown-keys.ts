// zod's classes by name from its core: `z.core` used as a value would bundle the whole core namespace.
import * as core from 'zod/v4/core';
import { closestName } from './closest.js';
import { shapeOf } from './schema-shape.js';
import { formatPath } from './problems.js';
import { isSecret } from './secret.js';

function isPlain(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !isSecret(value);
}

export interface UnknownKey {
  path: string;
  /** The key of that object most likely meant (`modle` → `model`). */
  suggestion?: string;
}

/** The schema under defaults, optionals and transforms. */
const unwrap = (schema: core.$ZodType | undefined): core.$ZodType | undefined => schema && shapeOf(schema).inner;

/** The schema of one key (or list item) under `schema`, where it can be told. */
function child(schema: core.$ZodType | undefined, key: string | number): core.$ZodType | undefined {
  const inner = unwrap(schema);
  if (inner instanceof core.$ZodObject) return inner._zod.def.shape[key];
  if (inner instanceof core.$ZodArray) return inner._zod.def.element;
  if (inner instanceof core.$ZodRecord) return inner._zod.def.valueType;
  return undefined;
}

function knownKeys(schema: core.$ZodType | undefined): string[] {
  const inner = unwrap(schema);
  return inner instanceof core.$ZodObject ? Object.keys(inner._zod.def.shape) : [];
}

/**
 * Keys the schema does not know (except `_comment…`) (a newer or a peer runtime's blocks such as `hooks` or `devices`),
 * each with the known key of its object it most likely meant: they were dropped while parsing, so comparing the input
 * with the parsed config finds them all.
 */
export function unknownKeys(
  input: unknown,
  parsed: unknown,
  schema?: core.$ZodType,
  path: (string | number)[] = [],
): UnknownKey[] {
  if (Array.isArray(input) && Array.isArray(parsed)) {
    return input.flatMap((item, i) => unknownKeys(item, parsed[i], child(schema, i), [...path, i]));
  }
  if (!isPlain(input) || !isPlain(parsed)) return [];
  return Object.entries(input).flatMap(([key, value]): UnknownKey[] => {
    if (key in parsed) return unknownKeys(value, parsed[key], child(schema, key), [...path, key]);
    // `_comment` keys are how JSON files (the peer runtime's example among them) carry comments.
    if (key.startsWith('_comment')) return [];
    const suggestion = closestName(
      key,
      knownKeys(schema).filter((known) => !(known in input)),
    );
    return [{ path: formatPath([...path, key]), ...(suggestion ? { suggestion } : {}) }];
  });
}
