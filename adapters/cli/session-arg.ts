import { sessionKeyOf } from '../../actors/agent.js';
import { sessionIdOf } from '../../bus/index.js';
import type { EventStore } from '../../store/log/event-store.js';
import { findSession, knownSessions, uniquePrefixLength, type KnownSession } from '../../store/log/session-lookup.js';
import { CliError } from './errors.js';

/** How a session is named to a person: its key, else its id. */
function label(session: KnownSession): string {
  return session.key ? `${session.key} (${session.id.slice(0, 14)}…)` : session.id;
}

const LISTED = 8;

/**
 * The session id a `--session` value names in this log (a key given to `tern agent --session`, a full key, an
 * `sk_v1_` id or a unique prefix). `waitFor` is the agent whose terminal session a plain word means when the log has
 * no such session yet (`tern log --follow` started before the first turn).
 */
export function sessionArg(log: EventStore | undefined, input: string, waitFor?: { agent: string }): string {
  const match = log ? findSession(log, input) : ({ kind: 'none' } as const);
  if (match.kind === 'found') return match.session.id;
  if (match.kind === 'ambiguous') {
    const shown = match.candidates.slice(0, LISTED).map(label).join('; ');
    throw new CliError(
      'session_ambiguous',
      `"${input}" names ${match.candidates.length} sessions`,
      shown,
      'Give the full key or more of the sk_v1_ id.',
    );
  }
  const plain = !input.startsWith('sk_v1_') && !input.toLowerCase().startsWith('v=1|');
  if (waitFor && plain)
    return sessionIdOf(
      sessionKeyOf({ agent: waitFor.agent, channel: 'cli', dimensions: [['chat', `direct:${input}`]] }),
    );
  if (waitFor && input.toLowerCase().startsWith('v=1|')) return sessionIdOf(input.toLowerCase());
  if (waitFor && input.startsWith('sk_v1_') && input.length === 70) return input;
  const known = log ? knownSessions(log) : [];
  const why =
    known.length === 0
      ? 'the event log has no session yet'
      : `the log has ${known.length}: ` +
        `${known.slice(0, LISTED).map(label).join('; ')}${known.length > LISTED ? '; …' : ''}`;
  throw new CliError(
    'session_not_found',
    `no session "${input}"`,
    why,
    'Name it by the key given to `tern agent --session`, its full key, or its sk_v1_ id (as `tern log` prints it).',
  );
}

/** Prints session ids as long as they must be to be unique in this log (each pastes back into `--session`). */
export class SessionIdPrinter {
  private length: number;
  private readonly seen: Set<string>;

  constructor(log: EventStore | undefined) {
    const ids = log?.sessionIds() ?? [];
    this.seen = new Set(ids);
    this.length = uniquePrefixLength(ids);
  }

  print(id: string | undefined): string {
    if (!id) return '-';
    if (!this.seen.has(id)) {
      this.seen.add(id);
      this.length = uniquePrefixLength([...this.seen]);
    }
    return id.slice(0, this.length);
  }
}
