import type * as z from 'zod';

/**
 * A schema built the first time it is asked for, then kept. Building zod schemas costs time at import, and a
 * gateway publishes a handful of the catalogue's event types before `/ready`.
 */
export function lazySchema<S extends z.ZodType>(build: () => S): () => S {
  let schema: S | undefined;
  return () => (schema ??= build());
}
