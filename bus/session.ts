import { createHash } from 'node:crypto';

export const SESSION_ID_PREFIX = 'sk_v1_';

/** A session's id: `sk_v1_` + hex sha256 of its readable key (`v=1|agent=…|channel=…|…`). */
export function sessionIdOf(key: string): string {
  return SESSION_ID_PREFIX + createHash('sha256').update(key).digest('hex');
}

/** Users may name a session by its key or its id. */
export function toSessionId(keyOrId: string): string {
  return keyOrId.startsWith(SESSION_ID_PREFIX) ? keyOrId : sessionIdOf(keyOrId);
}
