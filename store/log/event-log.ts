import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Database, RootDatabase } from 'lmdb';
import type { Envelope, ValidDraft } from '../../bus/index.js';
import { stampDraft, stampInPlace } from '../../bus/index.js';
import { LogError } from './errors.js';
import { queryFilter, type EventStore, type LogQuery } from './event-store.js';
import { PostingIndex } from './posting-index.js';
import { acquireWriterLock, makeLogFilesPrivate } from './writer-lock.js';

/**
 * lmdb through its CommonJS build (its `require` entry): Node's CommonJS loader reads lmdb's one bundled file, where
 * its ES module entry is a tree of a dozen modules, each resolved, linked and compiled at every start.
 */
const { open } = createRequire(import.meta.url)('lmdb') as typeof import('lmdb');

export type { LogQuery } from './event-store.js';

export interface OpenOptions {
  readOnly?: boolean;
  /** A writer maps its file afresh each time the file has grown by this much (`remapIfGrown`); 16 MiB by default. */
  remapAfterBytes?: number;
}

const REMAP_AFTER_BYTES = 16 * 1024 * 1024;

const MAX_SEQ = 0xffffffff;

function addPosting(postings: Map<string, number[]>, id: string | undefined, seq: number): void {
  if (!id) return;
  const list = postings.get(id);
  if (list) list.push(seq);
  else postings.set(id, [seq]);
}

/**
 * The append-only event log: lmdb in `<workspace>/sessions/`. Appends are numbered at once and queued; every
 * append of one turn of the event loop is written in one transaction with its index postings, so a crash never
 * leaves half a batch and `seq` never has a hole. Nothing is ever updated or deleted.
 */
export class EventLog implements EventStore {
  private seq: number;
  private batch: Envelope[] = [];
  private pending: Promise<unknown> = Promise.resolve();
  /** Resolves once the batch being gathered has been handed to lmdb. */
  private scheduled: Promise<void> = Promise.resolve();
  private failure: Error | undefined;
  private closed = false;
  /** The data file's size when it was last mapped. */
  private mappedBytes: number;
  /** While the file is mapped afresh: batches wait for it. */
  private remapping: Promise<void> | undefined;
  /** The folder of a scratch log, removed with it. */
  private removeOnClose: string | undefined;

  private constructor(
    readonly dir: string,
    readonly readOnly: boolean,
    private databases: Databases,
    private readonly releaseLock: () => void,
    private readonly remapAfterBytes: number,
  ) {
    this.seq = this.lastCommittedSeq();
    this.mappedBytes = this.fileBytes();
  }

  static open(dir: string, options: OpenOptions = {}): EventLog {
    const readOnly = options.readOnly ?? false;
    if (readOnly && !existsSync(`${dir}/data.mdb`)) throw new LogError('log_missing', `no event log in ${dir}`);
    // A workspace made here (one outside AGENT_HOME, before any turn) is owner-only, like the log folder.
    if (!readOnly) mkdirSync(dir, { recursive: true, mode: 0o700 });
    const releaseLock = readOnly ? () => {} : acquireWriterLock(dir);
    try {
      const databases = openDatabases(dir, readOnly);
      if (!readOnly) makeLogFilesPrivate(dir);
      return new EventLog(dir, readOnly, databases, releaseLock, options.remapAfterBytes ?? REMAP_AFTER_BYTES);
    } catch (error) {
      releaseLock();
      throw error;
    }
  }

  private get root(): RootDatabase {
    return this.databases.root;
  }

  private get events(): Database<Envelope, number> {
    return this.databases.events;
  }

  /** The highest `seq` handed out (appended, maybe not yet committed). */
  get lastSeq(): number {
    return this.seq;
  }

  /** Numbers the bus's own copy of a draft in place and queues its write (see `Sequencer`). */
  stamp(draft: ValidDraft): Envelope {
    this.checkWritable();
    return this.enqueue(stampInPlace(draft, ++this.seq, draft.at ?? Date.now()));
  }

  /** Numbers a copy of the event and queues its write; the returned envelope is final. */
  append(draft: ValidDraft): Envelope {
    this.checkWritable();
    return this.enqueue(stampDraft(draft, ++this.seq, draft.at ?? Date.now()));
  }

  private checkWritable(): void {
    if (this.readOnly) throw new LogError('log_write_failed', `the event log in ${this.dir} is open read-only`);
    if (this.closed) throw new LogError('log_closed', 'the event log is closed');
    if (this.failure) throw new LogError('log_write_failed', `an earlier write failed: ${this.failure.message}`);
  }

  private enqueue(envelope: Envelope): Envelope {
    // One write per turn of the event loop, not per microtask: a turn's events arrive in cascades of promise
    // callbacks, and a microtask batch would cut one cascade into several transactions.
    if (this.batch.push(envelope) === 1) {
      this.scheduled = new Promise<void>((resolve) => setImmediate(() => {
        this.writeBatch();
        resolve();
      }));
    }
    return envelope;
  }

  private writeBatch(): void {
    if (this.batch.length === 0) return;
    const remapping = this.remapping;
    if (remapping) {
      // `committed()` waits for the held batch: its promise is the one written once the log is mapped again.
      this.pending = remapping.then(() => {
        this.writeBatch();
        return this.pending;
      });
      return;
    }
    const batch = this.batch;
    this.batch = [];
    const sessions = new Map<string, number[]>();
    const turns = new Map<string, number[]>();
    const types = new Map<string, number[]>();
    // One synchronous transaction on this thread, not lmdb's write thread: lmdb signals an asynchronous commit before
    // its thread is done with the environment, and closing the environment then (a remap, a close) let that thread
    // write into freed memory: the process died with SIGSEGV. The commit's sync to disk runs here too (store/README.md).
    const { root, events, bySession, byTurn, byType } = this.databases;
    try {
      root.transactionSync(() => {
        for (const event of batch) {
          void events.put(event.seq, event);
          addPosting(sessions, event.session, event.seq);
          addPosting(turns, event.turn, event.seq);
          addPosting(types, event.type, event.seq);
        }
        bySession.write(sessions);
        byTurn.write(turns);
        byType.write(types);
      });
    } catch (error) {
      this.failure ??= error as Error;
      return;
    }
    this.remapIfGrown();
  }

  /**
   * Every page of the file that lmdb has read through its memory map stays resident in this process, and a write
   * reads the newest pages (copy-on-write of the B-tree's right edge), so a writer's RSS grew by the whole log:
   * 222 of 310 MB after 20,000 turns. Once the file has grown by `remapAfterBytes` since it was mapped, the writer
   * closes and reopens its environment between two batches: the old map and its resident pages go (they stay in the
   * page cache), and RSS holds at most about that much of the log. New batches wait (reads go on) until what is
   * written is synced; the swap then starts a turn of the event loop and completes within its microtasks (lmdb closes
   * at once when no write or asynchronous read is outstanding), so no read of this process meets the closed
   * environment.
   */
  private remapIfGrown(): void {
    if (this.remapping || this.closed || this.fileBytes() - this.mappedBytes < this.remapAfterBytes) return;
    const old = this.root;
    this.remapping = old.flushed
      .then(() => new Promise<void>((resolve) => setImmediate(resolve)))
      .then(() => (this.closed ? undefined : old.close()))
      .then(() => {
        if (this.closed) return;
        this.databases = openDatabases(this.dir, false);
        this.mappedBytes = this.fileBytes();
      })
      .catch((error: Error) => {
        this.failure ??= error;
      })
      .finally(() => {
        this.remapping = undefined;
      });
  }

  private fileBytes(): number {
    return this.readOnly ? 0 : statSync(`${this.dir}/data.mdb`).size;
  }

  /** Resolves when every append so far is committed and synced to disk. */
  async flushed(): Promise<void> {
    await this.committed();
    await this.root.flushed;
    if (this.failure) throw new LogError('log_write_failed', this.failure.message);
  }

  /** Resolves when every append so far is committed (visible to readers), without waiting for fsync. */
  async committed(): Promise<void> {
    await this.scheduled;
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
    const keep = queryFilter(query);
    let count = 0;
    for (const event of this.candidates(query)) {
      if (!keep(event)) continue;
      yield event;
      if (++count >= limit) return;
    }
  }

  /** The ids of every session in the log that start with `prefix` (all sessions: `sk_v1_`), in id order. */
  sessionIds(prefix = 'sk_v1_'): string[] {
    return [...this.databases.bySession.ids(prefix)];
  }

  close(): void {
    if (this.closed) return;
    // A remap not yet begun is given up (the environment is still open): what it held goes out now.
    this.remapping = undefined;
    // Appends still waiting for their turn of the event loop go out with the close, which waits for them.
    this.writeBatch();
    this.closed = true;
    this.releaseLock();
    void this.root.close();
    if (this.removeOnClose) rmSync(this.removeOnClose, { recursive: true, force: true });
  }

  /**
   * A log of its own in a new temporary folder, removed when it is closed: for a process that builds a runtime to
   * look at it (`tern tool`) and must leave the workspace's log to the gateway that writes it.
   */
  static scratch(): EventLog {
    const dir = mkdtempSync(join(tmpdir(), 'tern-scratch-log-'));
    const log = EventLog.open(dir);
    log.removeOnClose = dir;
    return log;
  }

  /** Opens a log for reading as soon as a writer has created it. */
  static async openWhenReady(dir: string, signal?: AbortSignal): Promise<EventLog | undefined> {
    while (!signal?.aborted) {
      try {
        return EventLog.open(dir, { readOnly: true });
      } catch (error) {
        if (!(error instanceof LogError && error.code === 'log_missing')) throw error;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
    return undefined;
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
    // A turn index is narrowest, then a session, then one exact type (a pattern is filtered while scanning).
    const exactType = query.type && /^[a-z_.]+$/.test(query.type) ? query.type : undefined;
    const { byTurn, bySession, byType } = this.databases;
    const index = query.turn ? byTurn : query.session ? bySession : exactType ? byType : undefined;
    const id = query.turn ?? query.session ?? exactType;
    if (!index || !id) {
      const range = reverse ? { start: high - 1, end: low - 1, reverse } : { start: low, end: high };
      for (const { value } of this.events.getRange({ ...range, snapshot: false })) yield value;
      return;
    }
    for (const seq of index.seqs(id, low - 1, high, reverse)) {
      const event = this.events.get(seq);
      if (event) yield event;
    }
  }
}

interface Databases {
  root: RootDatabase;
  events: Database<Envelope, number>;
  bySession: PostingIndex;
  byTurn: PostingIndex;
  byType: PostingIndex;
}

function openDatabases(dir: string, readOnly: boolean): Databases {
  const root = open({ path: dir, readOnly, maxDbs: 8 });
  const events = root.openDB<Envelope, number>({
    name: 'events',
    keyEncoding: 'uint32',
    // Key 0 is free (seq starts at 1): msgpack record structures shared there make decoding much faster.
    sharedStructuresKey: 0,
  });
  const bySession = PostingIndex.open(root, 'by_session');
  const byTurn = PostingIndex.open(root, 'by_turn');
  const byType = PostingIndex.open(root, 'by_type');
  // A reader can arrive between the writer creating the file and creating its databases.
  if (!events || !bySession || !byTurn || !byType) {
    void root.close();
    throw new LogError('log_missing', `the event log in ${dir} is not initialised yet`);
  }
  return { root, events, bySession, byTurn, byType };
}
