// zod's classes by name from its core: `z.core` used as a value would bundle the whole core namespace, every locale
// with it.
import * as core from 'zod/v4/core';

export interface SchemaShape {
  /** The schema under its defaults, optionals and transforms. */
  inner: core.$ZodType;
  /** Absent is fine: the field has a default or is optional. */
  omittable: boolean;
  defaultValue?: unknown;
}

/** The schema under defaults, optionals and transforms (the secret transform too), and what those wrappers allow. */
export function shapeOf(schema: core.$ZodType): SchemaShape {
  let inner = schema;
  let omittable = false;
  let defaultValue: unknown;
  for (;;) {
    if (inner instanceof core.$ZodDefault || inner instanceof core.$ZodPrefault) {
      omittable = true;
      if (defaultValue === undefined) defaultValue = inner._zod.def.defaultValue;
      inner = inner._zod.def.innerType;
    } else if (inner instanceof core.$ZodOptional) {
      omittable = true;
      inner = inner._zod.def.innerType;
    } else if (inner instanceof core.$ZodPipe) {
      inner = inner._zod.def.in;
    } else {
      return { inner, omittable, ...(defaultValue !== undefined ? { defaultValue } : {}) };
    }
  }
}
