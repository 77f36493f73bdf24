import { SESSION_ID_PREFIX, sessionIdOf } from '../../bus/index.js';
import type { EventStore } from './event-store.js';

/** A session of the log: its id and, when an event names it, its readable key. */
export interface KnownSession {
  id: string;
  key?: string;
}

export type SessionMatch =
  | { kind: 'found'; session: KnownSession }
  | { kind: 'ambiguous'; candidates: KnownSession[] }
  | { kind: 'none' };

const KEY_PREFIX = 'v=1|';

/** The readable key of a session, from the first event that carries it. */
function keyOf(log: EventStore, id: string): string | undefined {
  for (const type of ['turn.started', 'session.cleared'] as const) {
    const [event] = log.read({ session: id, type, limit: 1 });
    if (event?.type === 'turn.started' || event?.type === 'session.cleared') return event.data.session_key;
  }
  return undefined;
}

function sessionOf(log: EventStore, id: string): KnownSession {
  const key = keyOf(log, id);
  return key === undefined ? { id } : { id, key };
}

/** Every session of the log with its readable key. */
export function knownSessions(log: EventStore): KnownSession[] {
  return log.sessionIds().map((id) => sessionOf(log, id));
}

/** The values of a readable key's dimensions: `chat=direct:demo` gives `direct:demo`. */
function dimensionValues(key: string): string[] {
  return key
    .split('|')
    .slice(4)
    .map((part) => part.slice(part.indexOf('=') + 1));
}

/** Whether a word names this key the way users type it: `demo` for `chat=direct:demo` (`tern agent --session demo`). */
function namedBy(key: string, word: string): boolean {
  const wanted = word.toLowerCase();
  return dimensionValues(key).some(
    (value) => value === wanted || value === `direct:${wanted}` || value.endsWith(`:${wanted}`),
  );
}

function one(candidates: KnownSession[]): SessionMatch {
  if (candidates.length === 1) return { kind: 'found', session: candidates[0]! };
  return candidates.length === 0 ? { kind: 'none' } : { kind: 'ambiguous', candidates };
}

/**
 * The session a user means, by what they type: an `sk_v1_` id or a unique prefix of one, a full readable key
 * (`v=1|agent=…`), or the key they gave (`tern agent --session demo` → `demo`), matched against the dimension
 * values of the sessions in the log.
 */
export function findSession(log: EventStore, input: string): SessionMatch {
  const typed = input.trim();
  if (typed.startsWith(SESSION_ID_PREFIX)) {
    return one(log.sessionIds(typed).map((id) => sessionOf(log, id)));
  }
  if (typed.toLowerCase().startsWith(KEY_PREFIX)) {
    const key = typed.toLowerCase();
    const id = sessionIdOf(key);
    return log.sessionIds(id).length > 0 ? { kind: 'found', session: { id, key } } : { kind: 'none' };
  }
  return one(knownSessions(log).filter((s) => s.key !== undefined && namedBy(s.key, typed)));
}

/**
 * The shortest prefix length (at least `min`) at which every id differs from every other: ids printed that long
 * are unique in this log, so each pastes back into `--session`.
 */
export function uniquePrefixLength(ids: readonly string[], min = SESSION_ID_PREFIX.length + 8): number {
  const sorted = [...ids].sort();
  let length = min;
  for (let i = 1; i < sorted.length; i++) {
    const [a, b] = [sorted[i - 1]!, sorted[i]!];
    let common = 0;
    while (common < a.length && a[common] === b[common]) common++;
    length = Math.max(length, Math.min(common + 1, Math.max(a.length, b.length)));
  }
  return length;
}
