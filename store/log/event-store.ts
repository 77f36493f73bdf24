import type { Envelope, LogHealth, Sequencer, ValidDraft } from '../../bus/index.js';
import { typeMatcher } from '../../bus/index.js';

export interface LogQuery {
  /** Only events with a greater `seq`. */
  after?: number;
  /** Only events with a smaller `seq`. */
  before?: number;
  session?: string;
  turn?: string;
  /** A type pattern such as `provider.*` (see bus/type-glob). */
  type?: string;
  /** Only events at or after this time (epoch ms). */
  since?: number;
  /** Only events before this time (epoch ms). */
  until?: number;
  order?: 'asc' | 'desc';
  limit?: number;
}

/**
 * The append-only event log as the runtime uses it: lmdb on disk by default (`EventLog`), in memory for tests
 * (`MemoryEventStore`), a JetStream stream in a cluster (#27). `tests/log/event-store-suite.ts` is the contract
 * every implementation passes. The log is the bus's sequencer: `seq` is assigned at append, gapless and
 * increasing, and nothing is updated or deleted while it runs (`tern log compact|forget` do, offline).
 */
export interface EventStore extends Sequencer {
  readonly readOnly: boolean;
  /** The highest `seq` handed out (appended, maybe not yet committed). */
  readonly lastSeq: number;
  /** Numbers a copy of the event and queues its write; the returned envelope is final. */
  append(draft: ValidDraft): Envelope;
  /**
   * Resolves when every append so far is committed (visible to readers). While the log cannot write it waits; with
   * `failFast` it rejects with `LogFailingError` instead.
   */
  committed(options?: { failFast?: boolean }): Promise<void>;
  /** Resolves when every append so far is committed and on disk (`failFast`: as for `committed`). */
  flushed(options?: { failFast?: boolean }): Promise<void>;
  /** Calls `listener` when the log starts failing to write and when it writes again (absent: it never fails so). */
  onHealth?(listener: (health: LogHealth) => void): () => void;
  get(seq: number): Envelope | undefined;
  read(query?: LogQuery): Envelope[];
  iterate(query?: LogQuery): Iterable<Envelope>;
  /** The highest committed `seq` (0 for an empty log). */
  lastCommittedSeq(): number;
  /** Every session id the log names that starts with `prefix` (default `sk_v1_`), in ascending order. */
  sessionIds(prefix?: string): string[];
  /** Lets a reader see what another writer committed since its last read. */
  refresh(): void;
  /** Writes what is queued and closes. */
  close(): void;
}

/** Whether an event passes a query's filters other than the seq range and the index it was found through. */
export function queryFilter(query: LogQuery): (event: Envelope) => boolean {
  const matchesType = query.type ? typeMatcher(query.type) : undefined;
  return (e) =>
    (!matchesType || matchesType(e.type)) &&
    (query.since === undefined || e.at >= query.since) &&
    (query.until === undefined || e.at < query.until) &&
    (query.session === undefined || e.session === query.session) &&
    (query.turn === undefined || e.turn === query.turn);
}
