import * as z from 'zod/mini';

// Building zod schemas was most of the config's cost at start, and they are immutable once built: every
// field of one kind, one default or one optional shares a single instance.

/** `build`'s schema, built the first time it is asked for and the same instance from then on. */
export function shared<T>(build: () => T): () => T {
  let built: T | undefined;
  return () => (built ??= build());
}

const defaults = new WeakMap<z.core.SomeType, Map<string, z.core.SomeType>>();

/** `schema`, or `value` when the field is absent (each parse gets its own copy of `value`). */
export function withDefault<T extends z.core.SomeType>(
  schema: T,
  value: z.core.util.NoUndefined<z.core.output<T>>,
): z.ZodMiniDefault<T> {
  const byValue = defaults.get(schema) ?? new Map<string, z.core.SomeType>();
  defaults.set(schema, byValue);
  const key = JSON.stringify(value);
  const found = byValue.get(key) as z.ZodMiniDefault<T> | undefined;
  if (found) return found;
  const built = z._default(schema, value);
  byValue.set(key, built);
  return built;
}

const optionals = new WeakMap<z.core.SomeType, z.core.SomeType>();

/** `schema` or absent. */
export function optional<T extends z.core.SomeType>(schema: T): z.ZodMiniOptional<T> {
  const found = optionals.get(schema) as z.ZodMiniOptional<T> | undefined;
  if (found) return found;
  const built = z.optional(schema);
  optionals.set(schema, built);
  return built;
}
