import { ChannelError } from './channel.js';

/**
 * The code @slack/web-api gives a 429 it passes on (`rejectRateLimitedCalls`), with Slack's `Retry-After` in seconds.
 */
const RATE_LIMITED = 'slack_webapi_rate_limited_error';

/**
 * The Web API client's options: it tries each call once. The outbox tries a part again as for every channel
 * (`send_attempts`, `send_backoff_ms`, at least the 429's `Retry-After`); the client's own policy (10 tries over about
 * 30 minutes, and 1 to 2 s more after each `Retry-After`) hid a failing send from it and held the chat as long.
 */
export const SLACK_CLIENT_RETRIES = { retryConfig: { retries: 0 }, rejectRateLimitedCalls: true } as const;

/** Rethrows a 429 from the Web API client as `rate_limited` with Slack's wait, anything else as it is. */
export function rethrowRateLimit(error: unknown): never {
  const { code, retryAfter } = error as { code?: unknown; retryAfter?: unknown };
  if (code === RATE_LIMITED && typeof retryAfter === 'number')
    throw new ChannelError('rate_limited', `Slack: ${(error as Error).message}`, {
      delivered: 'no',
      retry: true,
      retryAfterMs: retryAfter * 1000,
    });
  throw error;
}
