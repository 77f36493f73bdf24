import { existsSync, mkdirSync } from 'node:fs';
import { open, type Database, type RootDatabase } from 'lmdb';
import type { Envelope, Sequencer, ValidDraft } from '../../bus/index.js';
import { typeMatcher } from '../../bus/index.js';
import { LogError } from './errors.js';
import { acquireWriterLock } from './writer-lock.js';

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

export interface OpenOptions {
  readOnly?: boolean;
}

type IndexKey = [string, number];
const MAX_SEQ = 0xffffffff;

/**
 * The append-only event log: lmdb in `<workspace>/sessions/`. Appends are numbered at once and written in
 * batches (lmdb commits every put issued in one tick together, so an event and its index entries land in
 * one transaction and a crash never leaves half of them). Nothing is ever updated or deleted.
 */
export class EventLog implements Sequencer {
  private seq: number;
  private pending: Promise<unknown> = Promise.resolve();
  private failure: Error | undefined;
  private closed = false;

  private constructor(
    readonly dir: string,
    readonly readOnly: boolean,
    private readonly root: RootDatabase,
    private readonly events: Database<Envelope, number>,
    private readonly bySession: Database<string, IndexKey>,
    private readonly byTurn: Database<string, IndexKey>,
    private readonly releaseLock: () => void,
  ) {
    this.seq = this.lastCommittedSeq();
  }

  static open(dir: string, options: OpenOptions = {}): EventLog {
    const readOnly = options.readOnly ?? false;
    if (readOnly && !existsSync(`${dir}/data.mdb`)) throw new LogError('log_missing', `no event log in ${dir}`);
    if (!readOnly) mkdirSync(dir, { recursive: true });
    const releaseLock = readOnly ? () => {} : acquireWriterLock(dir);
    try {
      const root = open({ path: dir, readOnly, maxDbs: 8 });
      const events = root.openDB<Envelope, number>({
        name: 'events',
        keyEncoding: 'uint32',
        // Key 0 is free (seq starts at 1): msgpack record structures shared there make decoding much faster.
        sharedStructuresKey: 0,
      });
      const bySession = root.openDB<string, IndexKey>({ name: 'by_session', encoding: 'string' });
      const byTurn = root.openDB<string, IndexKey>({ name: 'by_turn', encoding: 'string' });
      return new EventLog(dir, readOnly, root, events, bySession, byTurn, releaseLock);
    } catch (error) {
      releaseLock();
      throw error;
    }
  }

  /** The highest `seq` handed out (appended, maybe not yet committed). */
  get lastSeq(): number {
    return this.seq;
  }

  stamp(draft: ValidDraft): Envelope {
    return this.append(draft);
  }

  /** Numbers the event and queues its write; the returned envelope is final. */
  append(draft: ValidDraft): Envelope {
    if (this.readOnly) throw new LogError('log_write_failed', `the event log in ${this.dir} is open read-only`);
    if (this.closed) throw new LogError('log_closed', 'the event log is closed');
    if (this.failure) throw new LogError('log_write_failed', `an earlier write failed: ${this.failure.message}`);
    const envelope = { ...draft, seq: this.seq + 1, at: draft.at ?? Date.now() } as Envelope;
    this.seq = envelope.seq;
    const written = this.events.put(envelope.seq, envelope);
    if (envelope.session) this.bySession.put([envelope.session, envelope.seq], '');
    if (envelope.turn) this.byTurn.put([envelope.turn, envelope.seq], '');
    this.pending = written.catch((error: Error) => {
      this.failure ??= error;
    });
    return envelope;
  }

  /** Resolves when every append so far is committed and synced to disk. */
  async flushed(): Promise<void> {
    await this.pending;
    await this.root.flushed;
    if (this.failure) throw new LogError('log_write_failed', this.failure.message);
  }

  /** Resolves when every append so far is committed (visible to readers), without waiting for fsync. */
  async committed(): Promise<void> {
    await this.pending;
  }

  get(seq: number): Envelope | undefined {
    return this.events.get(seq);
  }

  /** Lets a reading process see what other processes committed since its last read. */
  refresh(): void {
    this.root.resetReadTxn();
  }

  lastCommittedSeq(): number {
    for (const key of this.events.getKeys({ reverse: true, limit: 1 })) return key;
    return 0;
  }

  read(query: LogQuery = {}): Envelope[] {
    return [...this.iterate(query)];
  }

  *iterate(query: LogQuery = {}): Generator<Envelope> {
    const limit = query.limit ?? Infinity;
    if (limit <= 0) return;
    const matchesType = query.type ? typeMatcher(query.type) : undefined;
    const keep = (e: Envelope): boolean =>
      (!matchesType || matchesType(e.type)) &&
      (query.since === undefined || e.at >= query.since) &&
      (query.until === undefined || e.at < query.until) &&
      (!query.session || !query.turn || (e.session === query.session && e.turn === query.turn));
    let count = 0;
    for (const event of this.candidates(query)) {
      if (!keep(event)) continue;
      yield event;
      if (++count >= limit) return;
    }
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.releaseLock();
    void this.root.close();
  }

  /** Closes after every queued append is committed. */
  async closeAfterFlush(): Promise<void> {
    await this.flushed().catch(() => {});
    this.close();
  }

  private *candidates(query: LogQuery): Generator<Envelope> {
    const low = (query.after ?? 0) + 1;
    const high = Math.min(query.before ?? MAX_SEQ, MAX_SEQ);
    if (low >= high) return;
    const reverse = query.order === 'desc';
    // A turn index is narrower than a session index, so it wins when both are given.
    const index = query.turn ? this.byTurn : query.session ? this.bySession : undefined;
    const id = query.turn ?? query.session;
    if (!index || !id) {
      const range = reverse ? { start: high - 1, end: low - 1, reverse } : { start: low, end: high };
      yield* this.events.getRange({ ...range, snapshot: false }).map(({ value }) => value);
      return;
    }
    const range = reverse
      ? { start: [id, high - 1] as IndexKey, end: [id, low - 1] as IndexKey, reverse }
      : { start: [id, low] as IndexKey, end: [id, high] as IndexKey };
    for (const key of index.getKeys({ ...range, snapshot: false })) {
      const event = this.events.get(key[1]);
      if (event) yield event;
    }
  }
}
