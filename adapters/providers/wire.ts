import type { z } from 'zod';
import { ProviderError } from './errors.js';

/** Vendor JSON is checked at the edge: a shape we cannot read is a typed failure, never a crash later. */
export function parseWire<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new ProviderError({ code: 'unknown', message: `unexpected ${what}: ${issue?.path.join('.') || '(root)'}: ${issue?.message}` });
}

export function streamEndedEarly(): ProviderError {
  return new ProviderError({ code: 'network', message: 'the stream ended before the answer was complete' });
}

/** Headers every family sends: the entry's own headers last, so a user can override anything. */
export function withHeaders(own: Record<string, string>, request: { headers?: Record<string, string> }): Record<string, string> {
  return { ...own, ...request.headers };
}
