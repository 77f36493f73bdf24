import { z } from 'zod/mini';

export type LeafKind = 'bool' | 'int' | 'list' | 'string';

export interface LeafOption {
  path: string[];
  kind: LeafKind;
}

type Schema = z.core.$ZodType;

/** The schema under wrappers (defaults, optionals, the secret transform). */
function unwrap(schema: Schema): Schema {
  if (schema instanceof z.core.$ZodDefault || schema instanceof z.core.$ZodPrefault || schema instanceof z.core.$ZodOptional) {
    return unwrap(schema._zod.def.innerType);
  }
  if (schema instanceof z.core.$ZodPipe) return unwrap(schema._zod.def.in);
  return schema;
}

function kindOf(schema: Schema): LeafKind | undefined {
  if (schema instanceof z.core.$ZodBoolean) return 'bool';
  if (schema instanceof z.core.$ZodNumber) return 'int';
  if (schema instanceof z.core.$ZodArray) return 'list';
  if (schema instanceof z.core.$ZodString || schema instanceof z.core.$ZodEnum || schema instanceof z.core.$ZodUnion) return 'string';
  return undefined;
}

/**
 * Every scalar or list option under an object schema, with its path. Maps (`z.record`, such as MCP servers)
 * are left out: their keys are the user's names, so no fixed variable can address them.
 */
export function leafOptions(schema: Schema, prefix: string[] = []): LeafOption[] {
  const inner = unwrap(schema);
  if (inner instanceof z.core.$ZodObject) {
    return Object.entries(inner._zod.def.shape).flatMap(([key, child]) => leafOptions(child, [...prefix, key]));
  }
  const kind = kindOf(inner);
  return kind ? [{ path: prefix, kind }] : [];
}
