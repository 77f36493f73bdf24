import * as z from 'zod';
import type { ProviderErrorCode } from '../../bus/index.js';
import { ProviderError } from './errors.js';

/** The error object every family nests under `error` (chat-completions, messages and generate-content alike). */
const errorBodySchema = z.object({
  error: z.looseObject({
    message: z.string().optional(),
    type: z.string().optional(),
    code: z.union([z.string(), z.number()]).nullish(),
    status: z.string().optional(),
    details: z.array(z.looseObject({ reason: z.string().optional() })).optional(),
  }),
});
type VendorError = z.infer<typeof errorBodySchema>['error'];

// Vendors mark these conditions only inside their JSON bodies; the markers are the vendors' documented
// codes, and for context length also the phrases their APIs are known to return (there is no code for it).
const contextCodes = new Set(['context_length_exceeded', 'string_above_max_length', 'model_context_window_exceeded']);
const contextPhrases =
  /context.length|context window|prompt is too long|maximum context|too many tokens|input token count.*exceeds/i;
const billingCodes = new Set(['insufficient_quota', 'billing_hard_limit_reached', 'billing_error', 'payment_required']);
const billingPhrases = /credit balance is too low|insufficient (balance|credit)/i;
const authTypes = new Set([
  'authentication_error',
  'permission_error',
  'UNAUTHENTICATED',
  'PERMISSION_DENIED',
  'API_KEY_INVALID',
]);
const overloadTypes = new Set(['overloaded_error', 'UNAVAILABLE', 'api_error', 'INTERNAL']);
const rateTypes = new Set(['rate_limit_error', 'rate_limit_exceeded', 'RESOURCE_EXHAUSTED']);

function vendorError(body: string): VendorError | undefined {
  try {
    const parsed = errorBodySchema.safeParse(JSON.parse(body));
    return parsed.success ? parsed.data.error : undefined;
  } catch {
    return undefined;
  }
}

function markers(error: VendorError | undefined): Set<string> {
  const found = new Set<string>();
  for (const value of [error?.type, error?.code, error?.status, ...(error?.details ?? []).map((d) => d.reason)]) {
    if (typeof value === 'string') found.add(value);
  }
  return found;
}

const has = (found: Set<string>, wanted: Set<string>): boolean => [...found].some((m) => wanted.has(m));

function codeFor(status: number, error: VendorError | undefined): ProviderErrorCode {
  const found = markers(error);
  const message = error?.message ?? '';
  if (has(found, billingCodes) || status === 402 || billingPhrases.test(message)) return 'billing';
  if (status === 401 || status === 403 || has(found, authTypes)) return 'auth';
  if (has(found, contextCodes) || ((status === 400 || status === 413) && contextPhrases.test(message))) {
    return 'context_overflow';
  }
  if (status === 429 || has(found, rateTypes)) return 'rate_limit';
  if (status === 408 || status === 504) return 'timeout';
  if (status === 503 || status === 529 || status === 500 || status === 502 || has(found, overloadTypes)) {
    return 'overloaded';
  }
  if (status >= 400 && status < 500) return 'bad_request';
  return 'unknown';
}

function retryAfter(header: string | string[] | undefined): number | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined) return undefined;
  const seconds = Number(value);
  return Number.isFinite(seconds) && seconds >= 0 ? Math.round(seconds * 1000) : undefined;
}

/** Turns a non-2xx answer into a typed error. `status` 200 with an error body is a mid-stream error event. */
export function classifyFailure(status: number, body: string, retryAfterHeader?: string | string[]): ProviderError {
  const error = vendorError(body);
  const code = codeFor(status, error);
  const detail = error?.message ?? (body.trim().slice(0, 200) || 'no body');
  const where = status >= 400 ? `HTTP ${status}` : 'error event in stream';
  return new ProviderError({
    code,
    status: status >= 400 ? status : undefined,
    message: `${where}: ${detail}`,
    retryAfterMs: retryAfter(retryAfterHeader),
  });
}
