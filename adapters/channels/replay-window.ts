/**
 * How old a signed webhook delivery may be: a request captured and sent again later carries a valid signature, and its
 * old time stamp is what gives it away. Platforms retry within minutes.
 */
export const REPLAY_WINDOW_MS = 5 * 60_000;

/** Whether an event stamped at `at` (epoch ms) is recent enough to take (a minute of clock skew allowed ahead). */
export function inReplayWindow(at: number, now = Date.now()): boolean {
  return at >= now - REPLAY_WINDOW_MS && at <= now + 60_000;
}
