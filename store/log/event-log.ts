import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statfsSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Database, RootDatabase } from 'lmdb';
import type { Envelope, FailingLog, LogFailureCode, LogHealth, ValidDraft } from '../../bus/index.js';
import { LOG_OK, LogFailingError, stampDraft, stampInPlace, typeMatcher } from '../../bus/index.js';
import { LOG_CORRUPTED_FIX, LogError, logCorruption } from './errors.js';
import { LmdbFile, type Damage } from './lmdb-file.js';
import { removeCompactionLeftovers } from './leftovers.js';
import { queryFilter, type EventStore, type LogQuery } from './event-store.js';
import { PostingIndex } from './posting-index.js';
import { BlobStore } from './blobs.js';
import { Names } from './names.js';
import { compactForm, expand } from './stored-form.js';
import { isNumbered, withNames } from './named-form.js';
import { acquireWriterLock, makeLogFilesPrivate } from './writer-lock.js';
import { closeEnvironment, openEnvironment } from '../lmdb.js';

export type { LogQuery } from './event-store.js';

export interface OpenOptions {
  readOnly?: boolean;
  /** A writer maps its file afresh each time the file has grown by this much (`remapIfGrown`); 16 MiB by default. */
  remapAfterBytes?: number;
  /**
   * …or, on Linux, each time the file-backed pages resident in the process have grown by this much since the last
   * remap (`remapIfGrown`); 8 MiB by default.
   */
  remapAfterResidentBytes?: number;
}

const REMAP_AFTER_BYTES = 16 * 1024 * 1024;
const REMAP_AFTER_RESIDENT_BYTES = 8 * 1024 * 1024;
/**
 * A writer looks at its resident pages (a read of `/proc/self/statm`) after this many events written since the last
 * look: counted in events, not time, what a look can miss does not grow with the machine's speed (looking every
 * 200 ms, a fast machine wrote 2 MB between two looks).
 */
const RESIDENT_CHECK_EVENTS = 256;
/** A write that failed is tried again after this long, doubling up to `RETRY_MAX_MS` while it keeps failing. */
const RETRY_FIRST_MS = 200;
const RETRY_MAX_MS = 2_000;
/**
 * A write error with less than this free on the log's filesystem is a full disk: lmdb reports a short write as EIO,
 * and a write cut short for lack of space leaves a few pages free.
 */
const LOW_SPACE_BYTES = 16 * 1024 * 1024;
/** lmdb's errors after which the environment must be opened again (`MDB_PANIC`, `MDB_BAD_TXN`). */
const REOPEN_ERRORS = new Set([-30795, -30782]);

const MAX_SEQ = 0xffffffff;
/** `/proc/self/statm` counts in pages: 4 KiB on x86-64 and most arm64 kernels (a 64 KiB one only remaps later). */
const PAGE_BYTES = 4096;

function addPosting(postings: Map<string, number[]>, id: string | undefined, seq: number): void {
  if (!id) return;
  const list = postings.get(id);
  if (list) list.push(seq);
  else postings.set(id, [seq]);
}

/**
 * The append-only event log: lmdb in `<workspace>/sessions/`. Appends are numbered at once and queued; every
 * append of one turn of the event loop is written in one transaction with its index postings, so a crash never
 * leaves half a batch and `seq` never has a hole. A running log never updates or deletes an event; only
 * `tern log compact` (archiving old events, leaving holes in `seq`) and `tern log forget` remove any, offline.
 */
export class EventLog implements EventStore {
  private seq: number;
  /** The highest `seq` committed by this process (or found in the log at the open). */
  private writtenSeq: number;
  /** Appends of this turn of the event loop, written together at its end. */
  private batch: Envelope[] = [];
  /** Appends whose write failed: written first, before anything newer, once the log can write again. */
  private held: Envelope[] = [];
  private waiters: CommitWaiter[] = [];
  /** Set while writes fail; a timer tries again. */
  private failing: Omit<FailingLog, 'state' | 'waiting'> | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private retryMs = RETRY_FIRST_MS;
  /** The environment failed in a way that only opening it again mends (or its remap failed half way). */
  private reopenNeeded = false;
  private readonly healthListeners = new Set<(health: LogHealth) => void>();
  private closed = false;
  /** lmdb's close of the environment, once `close` began it. */
  private closing: Promise<void> = Promise.resolve();
  /** The data file's size when it was last mapped. */
  private mappedBytes: number;
  /** The process's resident file-backed bytes just after the file was last mapped (Linux; undefined elsewhere). */
  private residentBaseline: number | undefined;
  private eventsSinceResidentCheck = 0;
  /** While the file is mapped afresh: batches wait for it. */
  private remapping: Promise<void> | undefined;
  /** A write waiting for the remap to end. */
  private afterRemap: Promise<void> | undefined;
  /** The folder of a scratch log, removed with it. */
  private removeOnClose: string | undefined;
  /** The length of the record shapes last copied to the `shapes` table. */
  private shapesMirrored = -1;
  /** Which lock file a reader opened (the one a compaction renames last): a new one means new files (`refresh`). */
  private logFiles: string | undefined;

  private constructor(
    readonly dir: string,
    readonly readOnly: boolean,
    private databases: Databases,
    private readonly releaseLock: () => void,
    private readonly remapAfterBytes: number,
    private readonly remapAfterResidentBytes: number,
  ) {
    this.seq = this.lastCommittedSeq();
    this.writtenSeq = this.seq;
    this.mappedBytes = this.fileBytes();
    this.residentBaseline = readOnly ? undefined : residentFileBytes();
    if (readOnly) this.logFiles = logFilesId(dir);
  }

  /**
   * Opens the log in `dir` (creating it unless `readOnly`). A damaged file is refused with `log_corrupted` before lmdb
   * opens it where the damage can be seen cheaply (its meta pages: lmdb crashed the process on those), and when lmdb
   * reports damage while opening.
   */
  static open(dir: string, options: OpenOptions = {}): EventLog {
    const readOnly = options.readOnly ?? false;
    if (readOnly && !existsSync(`${dir}/data.mdb`)) throw new LogError('log_missing', `no event log in ${dir}`);
    if (readOnly && beingCreated(dir)) throw new LogError('log_missing', `the event log in ${dir} is being created`);
    // A workspace made here (one outside AGENT_HOME, before any turn) is owner-only, like the log folder.
    if (!readOnly) mkdirSync(dir, { recursive: true, mode: 0o700 });
    const releaseLock = readOnly ? () => {} : acquireWriterLock(dir);
    try {
      if (!readOnly) removeCompactionLeftovers(dir);
      checkFirstReads(dir);
      const databases = openDatabases(dir, readOnly);
      if (!readOnly) makeLogFilesPrivate(dir);
      const remapAfter = options.remapAfterBytes ?? REMAP_AFTER_BYTES;
      const remapAfterResident = options.remapAfterResidentBytes ?? REMAP_AFTER_RESIDENT_BYTES;
      return new EventLog(dir, readOnly, databases, releaseLock, remapAfter, remapAfterResident);
    } catch (error) {
      releaseLock();
      throw logCorruption(error) ?? error;
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

  /**
   * Whether the log writes. A failed write does not stop the log: its events stay queued in memory, in order, with
   * everything appended after them, and are written as soon as a write succeeds (tried again after 200 ms, then at
   * most every 2 s), so `seq` keeps no hole and nothing appended is dropped while the process runs.
   */
  health(): LogHealth {
    if (!this.failing) return LOG_OK;
    return { state: 'failing', ...this.failing, waiting: this.held.length + this.batch.length };
  }

  /** Calls `listener` when the log starts failing and when it writes again; returns the unsubscribe. */
  onHealth(listener: (health: LogHealth) => void): () => void {
    this.healthListeners.add(listener);
    return () => this.healthListeners.delete(listener);
  }

  private checkWritable(): void {
    if (this.readOnly) throw new LogError('log_write_failed', `the event log in ${this.dir} is open read-only`);
    if (this.closed) throw new LogError('log_closed', 'the event log is closed');
  }

  private enqueue(envelope: Envelope): Envelope {
    // One write per turn of the event loop, not per microtask: a turn's events arrive in cascades of promise
    // callbacks, and a microtask batch would cut one cascade into several transactions.
    if (this.batch.push(envelope) === 1) setImmediate(() => this.writeBatch());
    return envelope;
  }

  /** Writes what is queued; while writes fail, only the retry timer (`retry`) and the close try. */
  private writeBatch(retry = false): void {
    if (this.closed || (this.batch.length === 0 && this.held.length === 0 && !this.failing)) return;
    if (this.remapping) {
      this.afterRemap ??= this.remapping.then(() => {
        this.afterRemap = undefined;
        this.writeBatch();
      });
      return;
    }
    if (this.failing && !retry) {
      this.held.push(...this.batch);
      this.batch = [];
      return;
    }
    const events = this.held.length === 0 ? this.batch : [...this.held, ...this.batch];
    this.held = [];
    this.batch = [];
    try {
      if (events.length > 0) this.transaction(events);
    } catch (error) {
      this.held = events;
      this.fail(error as Error);
      return;
    }
    if (events.length > 0) this.writtenSeq = events.at(-1)!.seq;
    this.settleWaiters();
    if (this.failing) this.recovered();
    this.eventsSinceResidentCheck += events.length;
    this.remapIfGrown();
  }

  /**
   * One synchronous transaction on this thread, not lmdb's write thread: lmdb signals an asynchronous commit before
   * its thread is done with the environment, and closing the environment then (a remap, a close) let that thread write
   * into freed memory: the process died with SIGSEGV. The commit's sync to disk runs here too (store/README.md).
   */
  private transaction(batch: Envelope[]): void {
    const sessions = new Map<string, number[]>();
    const turns = new Map<string, number[]>();
    const types = new Map<string, number[]>();
    const { root, events, bySession, byTurn, byType, shapes, blobs, names } = this.databases;
    let mirrored = this.shapesMirrored;
    try {
      root.transactionSync(() => {
        for (const given of batch) {
          // A salvage restores events as stored, by number: indexed by their names, stored as they are.
          const event = withNames(given, names, blobs);
          void events.put(event.seq, blobs ? compactForm(event, blobs, names) : event);
          addPosting(sessions, event.session, event.seq);
          addPosting(turns, event.turn, event.seq);
          addPosting(types, event.type, event.seq);
        }
        bySession.write(sessions);
        byTurn.write(turns);
        byType.write(types);
        // A second copy of the record shapes lmdb keeps at key 0 of `events` (they only grow): without them no event
        // can be decoded, and a salvage of a log whose page with key 0 is damaged reads them here (`log-check.ts`).
        const current = shapes ? events.getBinary(0) : undefined;
        if (shapes && current && current.length !== mirrored) {
          void shapes.put(0, Buffer.from(current));
          mirrored = current.length;
        }
      });
    } catch (error) {
      // Numbers given to new names in the failed transaction were never stored, nor were the lists it grew.
      names?.forget();
      for (const index of [bySession, byTurn, byType]) index.forget();
      throw error;
    }
    this.shapesMirrored = mirrored;
  }

  private fail(error: Error): void {
    const first = this.failing === undefined;
    const since = this.failing?.since ?? Date.now();
    this.failing = { ...describeFailure(error, this.dir, this.failing?.code), since };
    forgetUnsavedStructures(this.events);
    if (REOPEN_ERRORS.has(Number((error as { code?: unknown }).code))) this.reopenNeeded = true;
    const health = this.health() as FailingLog;
    this.waiters = this.waiters.filter((waiter) => {
      if (waiter.failFast) waiter.reject(new LogFailingError(health));
      return !waiter.failFast;
    });
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => this.retry(), this.retryMs);
    // Someone awaiting a commit keeps the process alive until it happens; otherwise the retries do not.
    if (!this.waiters.some((waiter) => !waiter.failFast)) this.retryTimer.unref();
    this.retryMs = Math.min(this.retryMs * 2, RETRY_MAX_MS);
    if (first) this.tell(health);
  }

  private retry(): void {
    this.retryTimer = undefined;
    if (this.closed) return;
    if (!this.reopenNeeded) return this.writeBatch(true);
    this.reopenNeeded = false;
    this.swapEnvironment().then(
      () => this.writeBatch(true),
      (error: Error) => {
        this.reopenNeeded = true;
        this.fail(error);
      },
    );
  }

  private recovered(): void {
    this.failing = undefined;
    this.retryMs = RETRY_FIRST_MS;
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    this.tell(LOG_OK);
  }

  private tell(health: LogHealth): void {
    for (const listener of this.healthListeners) listener(health);
  }

  private settleWaiters(): void {
    this.waiters = this.waiters.filter((waiter) => {
      if (waiter.seq <= this.writtenSeq) waiter.resolve();
      return waiter.seq > this.writtenSeq;
    });
  }

  /**
   * Every page of the file that lmdb has read through its memory map stays resident in this process, and a write
   * reads the newest pages (copy-on-write of the B-tree's right edge), so a writer's RSS grew by the whole log:
   * 222 of 310 MB after 20,000 turns. Linux also maps the 15 cached pages around each page read (its fault-around,
   * 64 KiB): a turn's blob lookups and inserts land at random places of the blob table, so a map grew by 27 MB within
   * 30 s of a remap. Once the file has grown by `remapAfterBytes` since it was mapped, or the process's resident
   * file pages by `remapAfterResidentBytes`, the writer closes and reopens its environment between two batches: the
   * old map and its resident pages go (they stay in the page cache), and RSS holds at most about that much of the
   * log. New batches wait (reads go on) until what is written is synced; the swap then starts a turn of the event
   * loop and completes within its microtasks (lmdb closes at once when no write or asynchronous read is
   * outstanding), so no read of this process meets the closed environment.
   */
  private remapIfGrown(): void {
    if (this.remapping || this.closed) return;
    if (this.fileBytes() - this.mappedBytes < this.remapAfterBytes && !this.residentGrown()) return;
    this.swapEnvironment().catch((error: Error) => {
      this.reopenNeeded = true;
      this.fail(error);
    });
  }

  /** Closes the environment and opens it again between two batches (see `remapIfGrown`); batches wait meanwhile. */
  private swapEnvironment(): Promise<void> {
    const old = this.root;
    const swapped = old.flushed
      .then(() => new Promise<void>((resolve) => setImmediate(resolve)))
      // An environment a failed swap closed already closes again without harm.
      .then(() => (this.closed ? undefined : closeEnvironment(old).catch(() => undefined)))
      .then(() => {
        if (this.closed) return;
        this.databases = openDatabases(this.dir, false);
        this.mappedBytes = this.fileBytes();
        this.residentBaseline = residentFileBytes();
      })
      .finally(() => {
        this.remapping = undefined;
      });
    this.remapping = swapped.catch(() => undefined);
    return swapped;
  }

  /**
   * Runs `replace` between two batches, once every append is committed and none waits (a compaction's swap of the
   * files, `live-compact.ts`): it must be synchronous, so no append comes between; the log then opens the files in
   * place and numbers on from the last event they hold.
   */
  async replaceFiles(replace: (writtenSeq: number) => void): Promise<void> {
    this.checkWritable();
    for (;;) {
      await this.flushed();
      await this.remapping;
      if (this.batch.length === 0 && this.held.length === 0 && !this.failing && !this.remapping) break;
      await new Promise((resolve) => setImmediate(resolve));
    }
    replace(this.writtenSeq);
    void closeEnvironment(this.root);
    this.databases = openDatabases(this.dir, false);
    this.seq = this.lastCommittedSeq();
    this.writtenSeq = this.seq;
    this.mappedBytes = this.fileBytes();
    this.shapesMirrored = -1;
  }

  /**
   * Whether the resident file pages grew by `remapAfterResidentBytes` since the last map, looked at every
   * `RESIDENT_CHECK_EVENTS` events written. The baseline follows them down: lmdb may unmap the old map after the new
   * one is open (a read still held it), and a baseline that counted its pages let a soak gateway's log reach 32 MB
   * resident.
   */
  private residentGrown(): boolean {
    if (this.residentBaseline === undefined) return false;
    if (this.eventsSinceResidentCheck < RESIDENT_CHECK_EVENTS) return false;
    this.eventsSinceResidentCheck = 0;
    const resident = residentFileBytes() ?? this.residentBaseline;
    this.residentBaseline = Math.min(this.residentBaseline, resident);
    return resident - this.residentBaseline >= this.remapAfterResidentBytes;
  }

  private fileBytes(): number {
    return this.readOnly ? 0 : statSync(`${this.dir}/data.mdb`).size;
  }

  /**
   * Writes events that keep their own `seq` (`tern log salvage`, `tern log compact`), in order, each after the log's
   * last one; with a `lostReason` a seq skipped is filled with `log.lost`, so `seq` keeps no hole (a compaction leaves
   * the holes of what it archived). Written at once, in transactions of 1,000 events.
   */
  restore(events: Iterable<Envelope>, lostReason?: string): { written: number; filled: number } {
    this.checkWritable();
    let written = 0;
    let filled = 0;
    let batch: Envelope[] = [];
    const flush = (): void => {
      if (batch.length === 0) return;
      this.transaction(batch);
      this.writtenSeq = batch.at(-1)!.seq;
      batch = [];
    };
    const add = (event: Envelope): void => {
      batch.push(event);
      this.seq = event.seq;
      if (batch.length >= 1000) flush();
    };
    for (const event of events) {
      if (event.seq <= this.seq) {
        const why = `event ${event.seq} comes after ${this.seq}: restored events must come in order`;
        throw new LogError('log_write_failed', why);
      }
      for (let seq = this.seq + 1; lostReason !== undefined && seq < event.seq; seq++) {
        add({ seq, at: event.at, type: 'log.lost', data: { reason: lostReason } } as Envelope);
        filled++;
      }
      add(event);
      written++;
    }
    flush();
    return { written, filled };
  }

  /**
   * Copies blobs as they are stored (`tern log salvage`, `tern log compact`): raw keys and values, in transactions of
   * 1,000, before the events naming them are restored.
   */
  restoreBlobs(entries: Iterable<{ key: Buffer; value: Buffer }>, table: RawTable = 'blobs'): number {
    this.checkWritable();
    const { root } = this.databases;
    const raw = root.openDB<Buffer, Buffer>({ name: table, keyEncoding: 'binary', encoding: 'binary' });
    let batch: Array<{ key: Buffer; value: Buffer }> = [];
    let written = 0;
    const flush = (): void => {
      root.transactionSync(() => {
        for (const { key, value } of batch) void raw.put(Buffer.from(key), Buffer.from(value));
      });
      written += batch.length;
      batch = [];
    };
    for (const entry of entries) if (batch.push(entry) >= 1000) flush();
    if (batch.length > 0) flush();
    return written;
  }

  /** The blobs (or names) as stored, raw (a compaction copies them). */
  *rawBlobs(table: RawTable = 'blobs'): Generator<{ key: Buffer; value: Buffer }> {
    if (!this.databases[table]) return;
    const raw = this.root.openDB<Buffer, Buffer>({ name: table, keyEncoding: 'binary', encoding: 'binary' });
    for (const { key, value } of raw.getRange({ snapshot: false })) yield { key, value };
  }

  /** Resolves when every append so far is committed and synced to disk (see `committed` for `failFast`). */
  async flushed(options?: { failFast?: boolean }): Promise<void> {
    await this.committed(options);
    await this.root.flushed;
  }

  /**
   * Resolves when every append so far is committed (visible to readers, and on disk: the transaction syncs). While
   * writes fail it waits for the retries; with `failFast` it rejects with `LogFailingError` as soon as a write fails
   * before these appends are in. Rejects with `log_closed` when the log is closed before they could be written.
   */
  committed(options?: { failFast?: boolean }): Promise<void> {
    const seq = this.seq;
    if (seq <= this.writtenSeq) return Promise.resolve();
    const failFast = options?.failFast === true;
    if (failFast && this.failing) return Promise.reject(new LogFailingError(this.health() as FailingLog));
    if (this.closed) {
      return Promise.reject(new LogError('log_closed', 'the event log closed before these events could be written'));
    }
    if (!failFast) this.retryTimer?.ref();
    return new Promise((resolve, reject) => this.waiters.push({ seq, failFast, resolve, reject }));
  }

  get(seq: number): Envelope | undefined {
    const event = this.events.get(seq);
    return event && this.whole(event);
  }

  /**
   * Lets a reading process see what other processes committed since its last read. A reader whose files a compaction
   * replaced (the writer renamed new ones over them, `live-compact.ts`) opens the new ones: its environment would show
   * the old files, which nobody writes any more, for as long as it ran (`tern log --follow` stopped at the swap).
   */
  refresh(): void {
    if (this.readOnly && !this.closed && this.logFiles !== logFilesId(this.dir)) {
      void closeEnvironment(this.root);
      this.databases = openDatabases(this.dir, true);
      this.logFiles = logFilesId(this.dir);
      return;
    }
    this.root.resetReadTxn();
  }

  lastCommittedSeq(): number {
    for (const key of this.events.getKeys({ reverse: true, limit: 1 })) return key;
    return 0;
  }

  /** How many events the log holds (a compacted one has holes: fewer than its last seq). */
  eventCount(): number {
    return this.events.getKeysCount({ start: 1 });
  }

  read(query: LogQuery = {}): Envelope[] {
    return [...this.iterate(query)];
  }

  *iterate(query: LogQuery = {}): Generator<Envelope> {
    const limit = query.limit ?? Infinity;
    if (limit <= 0) return;
    const keep = queryFilter(query);
    const wanted = query.type ? typeMatcher(query.type) : undefined;
    let count = 0;
    for (const event of this.candidates(query, wanted)) {
      if (!keep(event)) continue;
      yield event;
      if (++count >= limit) return;
    }
  }

  /** The ids of every session in the log that start with `prefix` (all sessions: `sk_v1_`), in id order. */
  sessionIds(prefix = 'sk_v1_'): string[] {
    return [...this.databases.bySession.ids(prefix)];
  }

  /**
   * The bytes the log's tables use (their pages, lmdb's own count) and each table's share: unlike the file's size,
   * which grows in steps and keeps freed pages, it moves with what is stored.
   */
  storedBytes(): { total: number; tables: Record<string, number> } {
    const { root, events, bySession, byTurn, byType, shapes, blobs, names } = this.databases;
    // Stats come from the read transaction, which lmdb keeps until it is reset: it would show an old state.
    root.resetReadTxn();
    const used = (db: { getStats(): unknown } | undefined): number => {
      if (!db) return 0;
      const stats = db.getStats() as TableStats;
      return (stats.treeBranchPageCount + stats.treeLeafPageCount + stats.overflowPages) * stats.pageSize;
    };
    const tables: Record<string, number> = {
      events: used(events),
      by_session: used(bySession.db),
      by_turn: used(byTurn.db),
      by_type: used(byType.db),
      shapes: used(shapes),
      blobs: used(blobs?.db),
      names: used(names?.db),
    };
    return { total: Object.values(tables).reduce((sum, bytes) => sum + bytes, 0), tables };
  }

  /**
   * Closes the log. The promise resolves once lmdb has closed the environment; until then another process that opens
   * the log waits (`store/lmdb.ts`), so a caller that hands the log to a child process it waits for synchronously
   * awaits it first.
   */
  close(): Promise<void> {
    if (this.closed) return this.closing;
    clearTimeout(this.retryTimer);
    // A remap not yet begun is given up (the environment is still open): what it held goes out now, with what failed
    // to be written before (one last try).
    this.remapping = undefined;
    // Appends still waiting for their turn of the event loop go out with the close.
    this.writeBatch(true);
    this.closed = true;
    clearTimeout(this.retryTimer);
    const lost = this.held.length + this.batch.length;
    for (const waiter of this.waiters.splice(0)) {
      waiter.reject(new LogError('log_closed', `the event log closed with ${lost} events it could not write`));
    }
    this.releaseLock();
    this.closing = closeEnvironment(this.root);
    if (this.removeOnClose) rmSync(this.removeOnClose, { recursive: true, force: true });
    return this.closing;
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

  /**
   * Opens a log for reading as soon as a writer has created it; `waiting` is called once if it is not there yet, so a
   * reader can say what it waits for (a log left half-made by a crash stays so until a gateway starts and repairs it).
   */
  static async openWhenReady(dir: string, signal?: AbortSignal, waiting?: () => void): Promise<EventLog | undefined> {
    let told = false;
    while (!signal?.aborted) {
      try {
        return EventLog.open(dir, { readOnly: true });
      } catch (error) {
        if (!(error instanceof LogError && error.code === 'log_missing')) throw error;
        if (!told) waiting?.();
        told = true;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
    return undefined;
  }

  /** Opens a log for reading, or undefined when there is none yet or its writer is still creating it. */
  static openIfMade(dir: string): EventLog | undefined {
    try {
      return EventLog.open(dir, { readOnly: true });
    } catch (error) {
      if (error instanceof LogError && error.code === 'log_missing') return undefined;
      throw error;
    }
  }

  /** Closes after every queued append is committed (while writes fail: at once, after a last try). */
  async closeAfterFlush(): Promise<void> {
    await this.flushed({ failFast: true }).catch(() => {});
    this.close();
  }

  /**
   * The event as appended, from its stored form. A reader may have opened the log before its writer made the tables
   * events name values in: they are looked for again when an event names them.
   */
  private whole(stored: Envelope): Envelope {
    const { databases } = this;
    if (isNumbered(stored)) {
      databases.names ??= Names.open(this.root);
      databases.blobs ??= BlobStore.open(this.root);
    }
    return expand(stored, databases.blobs, databases.names);
  }

  /**
   * The events of the query's range and index, as appended; with `wanted`, only those of a wanted type: a type is told
   * from the stored form, before the blobs an event names are read (a prompt's system prompt, tools and history, which
   * a session's history read passed over in every turn since its checkpoint).
   */
  /** A stored event's type, named (`named-form.ts`). */
  private typeOf(stored: Envelope): string {
    if (!isNumbered(stored)) return stored.type;
    this.databases.names ??= Names.open(this.root);
    return this.databases.names ? this.databases.names.name(stored.type as unknown as number) : stored.type;
  }

  private *candidates(query: LogQuery, wanted?: (type: string) => boolean): Generator<Envelope> {
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
      for (const { value } of this.events.getRange({ ...range, snapshot: false })) {
        if (!wanted || wanted(this.typeOf(value))) yield this.whole(value);
      }
      return;
    }
    for (const seq of index.seqs(id, low - 1, high, reverse)) {
      const event = this.events.get(seq);
      if (event && (!wanted || wanted(this.typeOf(event)))) yield this.whole(event);
    }
  }
}

/**
 * lmdb trusts its file, and damage where it reads first crashed the process as it opened the log (SIGSEGV, SIGBUS, an
 * assertion's abort): the meta pages (where each table starts), the table of tables, and the path to the newest event
 * (the open reads the last seq). Those few pages are read first; a file shorter than two pages is one being created.
 */
/**
 * A file shorter than its two meta pages is one a writer is creating. lmdb's read-only open of it fails, and lmdb-js
 * 3.5's error path then frees the environment twice (SIGSEGV in `EnvWrap::openEnv`: `log/follow` crashed its test
 * process when its reader opened as the writer made the log), so a reader does not call lmdb until the file is whole.
 */
function beingCreated(dir: string): boolean {
  try {
    return statSync(join(dir, 'data.mdb')).size < 2 * 4096;
  } catch (error) {
    // Gone since it was seen: a compaction's swap, or a log removed.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return true;
    throw error;
  }
}

function checkFirstReads(dir: string): void {
  const path = join(dir, 'data.mdb');
  if (!existsSync(path) || statSync(path).size < 2 * 4096) return;
  // Plain reads hold no reader slot: a writer may reuse a page between the read of the meta page naming it and the
  // read of the page. Damage found again on a second look is damage.
  const found = firstReadDamage(path) && firstReadDamage(path);
  if (found) throw new LogError('log_corrupted', `${found.what}, in ${path}`);
}

function firstReadDamage(path: string): Damage | undefined {
  const file = LmdbFile.open(path);
  try {
    const damaged = file.metas.find((meta): meta is Damage => 'what' in meta);
    const meta = file.current();
    const tables = meta ? file.tables(meta.main) : undefined;
    const events = tables?.tables.get('events');
    return damaged ?? tables?.damage[0] ?? (events ? file.lastPath(events) : undefined);
  } finally {
    file.close();
  }
}

/**
 * The log files' identity (device and inode of the lock and data files); undefined while there are none. Both count: a
 * reader that opened between a swap's two renames has the new lock file and the old data file.
 */
function logFilesId(dir: string): string | undefined {
  const ids = (['lock.mdb', 'data.mdb'] as const).map((name) => statSync(join(dir, name), { throwIfNoEntry: false }));
  return ids.every((stats) => stats !== undefined)
    ? ids.map((stats) => `${stats!.dev}:${stats!.ino}`).join(' ')
    : undefined;
}

/** The tables events name values in, copied raw from log to log. */
type RawTable = 'blobs' | 'names';

interface TableStats {
  pageSize: number;
  treeBranchPageCount: number;
  treeLeafPageCount: number;
  overflowPages: number;
}

interface CommitWaiter {
  seq: number;
  failFast: boolean;
  resolve(): void;
  reject(error: Error): void;
}

/**
 * lmdb saves msgpack record structures inside the write transaction that first uses one, and its encoder then holds
 * them as saved: after a transaction that failed, the encoder wrote records naming structures the file never got, and
 * they decoded with another structure's keys (seen on a full disk). Marked uninitialized, the structures are read back
 * from the file before the next write: msgpackr's own remedy when a save is declined.
 */
function forgetUnsavedStructures(events: Database<Envelope, number>): void {
  type WithEncoder = { encoder?: { structures?: { uninitialized?: boolean } } };
  const structures = (events as unknown as WithEncoder).encoder?.structures;
  if (structures) structures.uninitialized = true;
}

/** lmdb's code for a transaction an earlier error spoiled: damage only when nothing else failed before it. */
const MDB_BAD_TXN = -30782;

/**
 * Why a write failed, as an operator reads it: a full disk and a damaged file are told apart from other write errors.
 * `before` is the code of the failure this one follows, if any: a transaction a full disk spoiled is no damage.
 */
function describeFailure(
  error: Error,
  dir: string,
  before: LogFailureCode | undefined,
): { code: LogFailureCode; reason: string } {
  const errno = (error as { code?: unknown }).code;
  const free = freeBytes(dir);
  const noSpace = errno === 28 || errno === 'ENOSPC' || errno === 122 || errno === 'EDQUOT';
  const full = noSpace || (free !== undefined && free < LOW_SPACE_BYTES);
  if (full) {
    const left = free === undefined ? '' : `, ${Math.floor(free / 1024)} KB free`;
    const reason = `the disk holding ${dir} is full (${error.message}${left}): the event log cannot write`;
    return { code: 'disk_full', reason };
  }
  const spoiled = Number(errno) === MDB_BAD_TXN && before !== undefined && before !== 'damaged';
  if (logCorruption(error) && !spoiled) {
    return { code: 'damaged', reason: `the event log in ${dir} is damaged (${error.message}). ${LOG_CORRUPTED_FIX}` };
  }
  return { code: 'write_failed', reason: `the event log in ${dir} cannot write (${error.message})` };
}

/**
 * The process's resident file-backed memory (RssFile and RssShmem: `/proc/self/statm`'s third field, in pages), the
 * share of RSS a memory map of the log adds to; undefined where there is no `/proc`.
 */
function residentFileBytes(): number | undefined {
  try {
    const pages = Number(readFileSync('/proc/self/statm', 'latin1').split(' ')[2]);
    return Number.isFinite(pages) ? pages * PAGE_BYTES : undefined;
  } catch {
    return undefined;
  }
}

function freeBytes(dir: string): number | undefined {
  try {
    const stats = statfsSync(dir);
    return stats.bavail * stats.bsize;
  } catch {
    return undefined;
  }
}

interface Databases {
  root: RootDatabase;
  events: Database<Envelope, number>;
  bySession: PostingIndex;
  byTurn: PostingIndex;
  byType: PostingIndex;
  /** The copy of the record shapes; absent in a log a reader opens that was written before it existed. */
  shapes: Database<Buffer, number> | undefined;
  /** Values events name by hash (`stored-form.ts`); absent in a log a reader opens that was written before it. */
  blobs: BlobStore | undefined;
  /** Strings events name by number (`named-form.ts`); absent like `blobs`. */
  names: Names | undefined;
}

function openDatabases(dir: string, readOnly: boolean): Databases {
  const root = openEnvironment({ path: dir, readOnly, maxDbs: 8 });
  // lmdb opens each database of a writer in a write transaction of its own, and creating one commits to disk: a new
  // log's seven databases made one fsync after another before the first event. In one transaction they commit once.
  const named = readOnly ? openNamed(root) : root.transactionSync(() => openNamed(root));
  const { events, bySession, byTurn, byType } = named;
  // A reader can arrive between the writer creating the file and creating its databases.
  if (!events || !bySession || !byTurn || !byType) {
    void closeEnvironment(root);
    throw new LogError('log_missing', `the event log in ${dir} is not initialised yet`);
  }
  return { ...named, root, events, bySession, byTurn, byType };
}

function openNamed(root: RootDatabase) {
  const events = root.openDB<Envelope, number>({
    name: 'events',
    keyEncoding: 'uint32',
    // Key 0 is free (seq starts at 1): msgpack record structures shared there make decoding much faster.
    sharedStructuresKey: 0,
  });
  const bySession = PostingIndex.open(root, 'by_session');
  const byTurn = PostingIndex.open(root, 'by_turn');
  const byType = PostingIndex.open(root, 'by_type');
  const shapesOptions = { name: 'shapes', keyEncoding: 'uint32', encoding: 'binary' } as const;
  const shapes = (root.openDB<Buffer, number>(shapesOptions) as Database<Buffer, number> | undefined) ?? undefined;
  return { events, bySession, byTurn, byType, shapes, blobs: BlobStore.open(root), names: Names.open(root) };
}
