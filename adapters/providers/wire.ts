import type * as z from 'zod';
import { ProviderError } from './errors.js';

/** Vendor JSON is checked at the edge: a shape we cannot read is a typed failure, never a crash later. */
export function parseWire<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new ProviderError({
    code: 'unknown',
    message: `unexpected ${what}: ${issue?.path.join('.') || '(root)'}: ${issue?.message}`,
  });
}

export function streamEndedEarly(): ProviderError {
  return new ProviderError({ code: 'network', message: 'the stream ended before the answer was complete' });
}

/**
 * The headers a client sends with a request: its own, then the request's (an entry's), so a user can override
 * anything.
 */
export function headersFor(
  own: Record<string, string>,
): (request: { headers?: Record<string, string> }) => Record<string, string> {
  return (request) => ({ ...own, ...request.headers });
}
