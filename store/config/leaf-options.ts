// zod's classes by name from its core: `z.core` used as a value would bundle the whole core namespace, every locale
// with it.
import * as core from 'zod/v4/core';
import { shapeOf } from './schema-shape.js';

export type LeafKind = 'bool' | 'int' | 'list' | 'string';

export interface LeafOption {
  path: string[];
  kind: LeafKind;
}

type Schema = core.$ZodType;

function kindOf(schema: Schema): LeafKind | undefined {
  if (schema instanceof core.$ZodBoolean) return 'bool';
  if (schema instanceof core.$ZodNumber) return 'int';
  if (schema instanceof core.$ZodArray) return 'list';
  if (schema instanceof core.$ZodString || schema instanceof core.$ZodEnum || schema instanceof core.$ZodUnion)
    return 'string';
  return undefined;
}

/**
 * Every scalar or list option under an object schema, with its path. Maps (`z.record`, such as MCP servers)
 * are left out: their keys are the user's names, so no fixed variable can address them.
 */
export function leafOptions(schema: Schema, prefix: string[] = []): LeafOption[] {
  const { inner } = shapeOf(schema);
  if (inner instanceof core.$ZodObject) {
    return Object.entries(inner._zod.def.shape).flatMap(([key, child]) => leafOptions(child, [...prefix, key]));
  }
  const kind = kindOf(inner);
  return kind ? [{ path: prefix, kind }] : [];
}
