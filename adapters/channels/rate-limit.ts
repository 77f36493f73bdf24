import { ChannelError } from './channel.js';

export interface RateLimitOptions {
  /** Calls in all, the first included. */
  tries?: number;
  /** Waiting in all; a `retry_after` beyond what is left is not waited for (the error goes up). */
  maxWaitMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

const sleepFor = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Calls `call` again after the platform's `retry_after` while it answers 429 (`ChannelError` `rate_limited`). A 429
 * means the platform took nothing, so calling again cannot send a message twice; any other error goes up at once.
 */
export async function honourRateLimit<T>(call: () => Promise<T>, options: RateLimitOptions = {}): Promise<T> {
  const tries = options.tries ?? 5;
  let budget = options.maxWaitMs ?? 120_000;
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      if (!(error instanceof ChannelError) || error.code !== 'rate_limited' || attempt >= tries) throw error;
      const wait = error.retryAfterMs ?? 1000;
      if (wait > budget) throw error;
      budget -= wait;
      await (options.sleep ?? sleepFor)(wait);
    }
  }
}
