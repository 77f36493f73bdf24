import type { Client4 } from '@mattermost/client';
import { ChannelError } from '../channel.js';

interface Answer {
  response: Response;
  headers: Headers;
  data: unknown;
}
type FetchWithResponse = (url: string, options: { ignoreStatus?: boolean }) => Promise<Answer>;

/**
 * How long a 429 asks to wait: `Retry-After`, else `X-Ratelimit-Reset` (both in seconds, as Mattermost's limiter sends
 * them); a second when neither is there.
 */
export function waitOf(headers: Headers): number {
  for (const name of ['retry-after', 'x-ratelimit-reset']) {
    const seconds = Number(headers.get(name));
    if (headers.has(name) && Number.isFinite(seconds) && seconds >= 0) return Math.ceil(seconds * 1000);
  }
  return 1000;
}

/**
 * Client4 throws a ClientError without the answer's headers, so a 429's wait is lost: its fetch is wrapped to see the
 * status first. A 429 becomes `rate_limited` with the wait; any other refusal keeps Client4's error shape
 * (`status_code`, `message`).
 */
export function keepRateLimits(client: Client4): void {
  const target = client as unknown as { doFetchWithResponse: FetchWithResponse };
  const original = target.doFetchWithResponse;
  target.doFetchWithResponse = async (url, options) => {
    const answer = await original(url, { ...options, ignoreStatus: true });
    if (answer.response.ok || options.ignoreStatus) return answer;
    const status = answer.response.status;
    if (status === 429) {
      const retryAfterMs = waitOf(answer.response.headers);
      const failure = { delivered: 'no', retry: true, retryAfterMs } as const;
      throw new ChannelError('rate_limited', `Mattermost answered 429: wait ${retryAfterMs} ms`, failure);
    }
    const message = (answer.data as { message?: string } | undefined)?.message ?? '';
    throw Object.assign(new Error(message), { status_code: status });
  };
}
