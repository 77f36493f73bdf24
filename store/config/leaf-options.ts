import { z } from 'zod';

export type LeafKind = 'bool' | 'int' | 'list' | 'string';

export interface LeafOption {
  path: string[];
  kind: LeafKind;
}

/** The schema under wrappers (defaults, optionals, the secret transform). */
function unwrap(schema: z.ZodType): z.ZodType {
  if (schema instanceof z.ZodDefault || schema instanceof z.ZodPrefault || schema instanceof z.ZodOptional) {
    return unwrap(schema.unwrap() as z.ZodType);
  }
  if (schema instanceof z.ZodPipe) return unwrap(schema.in as z.ZodType);
  return schema;
}

function kindOf(schema: z.ZodType): LeafKind | undefined {
  if (schema instanceof z.ZodBoolean) return 'bool';
  if (schema instanceof z.ZodNumber) return 'int';
  if (schema instanceof z.ZodArray) return 'list';
  if (schema instanceof z.ZodString || schema instanceof z.ZodEnum || schema instanceof z.ZodUnion) return 'string';
  return undefined;
}

/**
 * Every scalar or list option under an object schema, with its path. Maps (`z.record`, such as MCP servers)
 * are left out: their keys are the user's names, so no fixed variable can address them.
 */
export function leafOptions(schema: z.ZodType, prefix: string[] = []): LeafOption[] {
  const inner = unwrap(schema);
  if (inner instanceof z.ZodObject) {
    return Object.entries(inner.shape as Record<string, z.ZodType>).flatMap(([key, child]) => leafOptions(child, [...prefix, key]));
  }
  const kind = kindOf(inner);
  return kind ? [{ path: prefix, kind }] : [];
}
