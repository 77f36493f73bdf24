import {
  closeSync,
  createWriteStream,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  type WriteStream,
} from 'node:fs';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import { createGzip, gunzipSync, type Gzip } from 'node:zlib';
import type { Envelope } from '../../bus/index.js';
import { validateDraft } from '../../bus/index.js';
import { LogError } from './errors.js';
import { EventLog } from './event-log.js';
import { removeCompactionLeftovers } from './leftovers.js';
import { queryFilter, type LogQuery } from './event-store.js';
import { planRollup, type RollupPlan } from '../usage/rollup-plan.js';
import { acquireWriterLock } from './writer-lock.js';

// The lock file first: a reader that opens between the two renames then reads the old data file, which nobody writes
// any more, through a lock file the writer will share. Data first paired the new data file with the old lock file,
// where the writer cannot see that reader's snapshot and reuses its pages (a torn read, seen in a CI run).
const FILES = ['lock.mdb', 'data.mdb'] as const;
const DAY_MS = 24 * 60 * 60 * 1000;
/** What usage totals are made of: an old answer goes once folded into the rollup (`planRollup`). */
const USAGE_TYPES = new Set(['provider.requested', 'provider.responded', 'usage.rolled_up']);
const CHECKPOINT_TYPES = 'session.compacted,session.cleared';
const HISTORY = new Set([
  'session.cleared',
  'session.compacted',
  'summary.written',
  'turn.started',
  'turn.completed',
  'turn.stopped',
  'turn.failed',
]);

export const archiveDir = (dir: string): string => join(dir, 'archive');

export interface Retention {
  max_age_days: number;
  /** The most the log's tables may hold after a compaction, in MB (2^20 bytes); the oldest events go first. */
  max_size_mb?: number | undefined;
}

export interface Compacted {
  kept: number;
  archived: number;
  removed: number;
  /** The log's tables before and after, in bytes (a compaction the gateway runs measures them). */
  bytes_before?: number;
  bytes_after?: number;
  /** The archive file written, relative to the log's folder; absent when nothing was archived. */
  archive?: string;
}

/** What a compaction does with each event: keep it, move it to the archive, or drop it for good. */
export type Fate = 'keep' | 'archive' | 'remove';

export interface Plan {
  /** Reads what the fates depend on from the log before it is copied. */
  prepare(log: EventLog): void;
  fate(event: Envelope): Fate;
  /** Events to add to the log (`tern log import`), in seq order, merged with the kept ones by seq. */
  added?: Iterable<Envelope>;
  /** Appended to the new log once it holds the kept events. */
  closing(result: Compacted): Parameters<typeof validateDraft>[0];
}

/**
 * Rewrites the log in `dir` into a fresh lmdb environment holding only the events `plan` keeps (lmdb's file never
 * shrinks: a copy is how its space comes back), writes the archived ones as gzipped JSON lines under `archive/`, and
 * swaps the new files in. Holds the writer lock throughout: a running gateway refuses it (`log_locked`).
 */
export async function rewrite(dir: string, plan: Plan, now: Date): Promise<Compacted> {
  if (!existsSync(join(dir, 'data.mdb'))) throw new LogError('log_missing', `no event log in ${dir}`);
  const release = acquireWriterLock(dir);
  removeCompactionLeftovers(dir);
  const stamp = now.toISOString().replace(/[:.]/g, '-');
  const fresh = join(dir, `.compact-${stamp}`);
  try {
    const old = EventLog.open(dir, { readOnly: true });
    plan.prepare(old);
    rmSync(fresh, { recursive: true, force: true });
    const log = EventLog.open(fresh);
    const result: Compacted = { kept: 0, archived: 0, removed: 0 };
    const archive = new ArchiveWriter(dir, stamp);
    try {
      log.restoreBlobs(old.rawBlobs());
      const kept = keptOf(old.iterate(), plan, result, archive);
      log.restore(plan.added ? mergeBySeq(kept, plan.added) : kept);
      const written = await archive.close();
      if (written) result.archive = written;
      log.append(validateDraft(plan.closing(result)));
      await log.flushed();
    } finally {
      log.close();
      old.close();
    }
    // Each rename replaces its file at once, the data file first: a kill leaves the old log or the new one, never
    // none (moving the old files aside first left a moment with no data.mdb, which opens as an empty log).
    for (const name of FILES) renameSync(join(fresh, name), join(dir, name));
    syncFolder(dir);
    return result;
  } finally {
    rmSync(fresh, { recursive: true, force: true });
    release();
  }
}

/**
 * Puts the folder's entries on disk after a swap of the log's files: a power cut must not bring the old files back
 * under the name once events were written to the new ones.
 */
export function syncFolder(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** The events `plan` keeps, counted in `result`; those it archives go to `archive`. */
export function* keptOf(
  events: Iterable<Envelope>,
  plan: Plan,
  result: Compacted,
  archive: ArchiveWriter,
): Generator<Envelope> {
  for (const event of events) {
    const fate = plan.fate(event);
    if (fate === 'keep') {
      result.kept++;
      yield event;
    } else if (fate === 'archive') {
      result.archived++;
      archive.write(event);
    } else result.removed++;
  }
}

/** Two runs of events, each in seq order, as one in seq order. */
export function* mergeBySeq(a: Iterable<Envelope>, b: Iterable<Envelope>): Generator<Envelope> {
  const second = b[Symbol.iterator]();
  let next = second.next();
  for (const event of a) {
    for (; !next.done && next.value.seq < event.seq; next = second.next()) yield next.value;
    yield event;
  }
  for (; !next.done; next = second.next()) yield next.value;
}

/**
 * The archived events as they were appended, one JSON line each, gzipped as they come (a compaction holds none in
 * memory); the file is named for the first and last seq once complete.
 */
export class ArchiveWriter {
  private gzip: Gzip | undefined;
  private file: WriteStream | undefined;
  private done: Promise<void> | undefined;
  private first = 0;
  private last = 0;
  private readonly partial: string;

  constructor(
    private readonly dir: string,
    stamp: string,
  ) {
    this.partial = join(archiveDir(dir), `.writing-${stamp}.jsonl.gz`);
  }

  write(event: Envelope): void {
    if (!this.gzip) {
      mkdirSync(archiveDir(this.dir), { recursive: true, mode: 0o700 });
      this.gzip = createGzip();
      this.file = createWriteStream(this.partial, { mode: 0o600 });
      this.gzip.pipe(this.file);
      this.done = finished(this.file);
      this.first = event.seq;
    }
    this.last = event.seq;
    this.gzip.write(`${JSON.stringify(event)}\n`);
  }

  /** Ends a compaction cut short: the partial file goes once closed, its events are still in the log. */
  async abandon(): Promise<void> {
    if (!this.gzip || !this.file) return;
    const file = this.file;
    const closed = file.closed ? undefined : new Promise<void>((resolve) => file.once('close', () => resolve()));
    this.gzip.destroy();
    file.destroy();
    await Promise.all([closed, this.done?.catch(() => undefined)]);
    this.gzip = undefined;
    rmSync(this.partial, { force: true });
  }

  /** The archive's path relative to the log's folder, or undefined when nothing was archived. */
  async close(): Promise<string | undefined> {
    if (!this.gzip) return undefined;
    this.gzip.end();
    await this.done;
    this.gzip = undefined;
    const name = `${this.first}-${this.last}.jsonl.gz`;
    renameSync(this.partial, join(archiveDir(this.dir), name));
    return join('archive', name);
  }
}

/**
 * `tern log compact`: events older than `max_age_days` are archived, except each session's latest checkpoint with the
 * history after it (an old session keeps its context); the usage of the archived answers is folded into one
 * `usage.rolled_up` event (totals survive).
 */
export function compactLog(dir: string, retention: Retention, now = new Date()): Promise<Compacted> {
  return rewrite(dir, retentionPlan(retention, now), now);
}

/** What a compaction under `retention` keeps, archives and rolls up. */
export function retentionPlan(retention: Retention, now: Date): Plan {
  const cutoff = now.getTime() - retention.max_age_days * DAY_MS;
  /** Each session's latest checkpoint. */
  const checkpoints = new Map<string, number>();
  /** With `max_size_mb`: the oldest event that fits, counted back from the newest. */
  let firstFitting = 0;
  let rollup: RollupPlan = { covered: new Set(), event: undefined };
  const young = (event: Envelope): boolean => event.at >= cutoff && event.seq >= firstFitting;
  return {
    prepare(log) {
      for (const event of log.iterate({ type: CHECKPOINT_TYPES })) {
        if (event.session !== undefined) checkpoints.set(event.session, event.seq);
      }
      if (retention.max_size_mb !== undefined) firstFitting = firstFittingSeq(log, retention.max_size_mb);
      rollup = planRollup(log, (event) => !young(event), now.getTime());
    },
    fate(event) {
      if (rollup.covered.has(event.seq)) return event.type === 'usage.rolled_up' ? 'remove' : 'archive';
      if (young(event) || USAGE_TYPES.has(event.type)) return 'keep';
      const from = event.session === undefined ? undefined : checkpoints.get(event.session);
      return from !== undefined && event.seq >= from && HISTORY.has(event.type) ? 'keep' : 'archive';
    },
    // Read once the log is prepared: the rollup takes the seq of the last answer it folds.
    added: {
      *[Symbol.iterator]() {
        if (rollup.event) yield rollup.event;
      },
    },
    closing: ({ archived, kept, archive, bytes_before, bytes_after }) => ({
      type: 'log.compacted',
      data: {
        archived,
        kept,
        ...(archive ? { archive } : {}),
        ...(bytes_before !== undefined && bytes_after !== undefined ? { bytes_before, bytes_after } : {}),
      },
    }),
  };
}

/**
 * The seq from which the newest events take at most `maxMb` of the log: each event counted at the log's mean (its
 * tables' bytes over its events: a blob named by many events is shared by them), the ones kept whatever their age
 * included, so the log may stay a little over.
 */
function firstFittingSeq(log: EventLog, maxMb: number): number {
  const count = log.eventCount();
  if (count === 0) return 0;
  const fitting = Math.floor((maxMb * 2 ** 20) / (log.storedBytes().total / count));
  if (fitting >= count) return 0;
  if (fitting === 0) return Number.MAX_SAFE_INTEGER;
  let seq = 0;
  for (const event of log.iterate({ order: 'desc', limit: fitting })) seq = event.seq;
  return seq;
}

/**
 * `tern log forget --sender ID`: the messages of that sender (`message.received`, `message.routed` naming them) and
 * every event of the turns those messages started are removed for good, not archived; a `data.forgotten` event says
 * what went, so projections of the log (a memory index) drop it too.
 */
export function forgetSender(dir: string, sender: string, now = new Date()): Promise<Compacted> {
  const messages = new Set<string>();
  const turns = new Set<string>();
  const bySender = (event: Envelope): boolean => {
    const data = event.data as { sender?: string; message_id?: string } | undefined;
    if (event.turn !== undefined && turns.has(event.turn)) return true;
    if (data?.sender === sender) return true;
    return data?.message_id !== undefined && messages.has(data.message_id) && event.type.startsWith('message.');
  };
  return rewrite(
    dir,
    {
      prepare(log) {
        for (const event of log.iterate({ type: 'message.received,message.routed' })) {
          const data = event.data as { sender?: string; message_id?: string };
          if (data.sender === sender && data.message_id) messages.add(data.message_id);
        }
        for (const event of log.iterate({ type: 'turn.started' })) {
          const data = event.data as { message_id?: string };
          if (event.turn && data.message_id && messages.has(data.message_id)) turns.add(event.turn);
        }
      },
      fate: (event) => (bySender(event) ? 'remove' : 'keep'),
      closing: (result) => ({
        type: 'data.forgotten',
        data: { sender, removed: result.removed, turns: [...turns], messages: [...messages] },
      }),
    },
    now,
  );
}

/** Every archived event of `dir` that matches `query`, oldest first (`tern log --archive`). */
export function* readArchive(dir: string, query: LogQuery = {}): Generator<Envelope> {
  const folder = archiveDir(dir);
  if (!existsSync(folder)) return;
  const keep = queryFilter(query);
  // A `.writing-*` file is an archive still being written (or one a kill cut short): its events are still in the log.
  const files = readdirSync(folder).filter((name) => name.endsWith('.jsonl.gz') && !name.startsWith('.'));
  files.sort((a, b) => Number(a.split('-')[0]) - Number(b.split('-')[0]));
  for (const name of files) {
    for (const line of gunzipSync(readFileSync(join(folder, name)))
      .toString('utf8')
      .split('\n')) {
      if (!line) continue;
      const event = JSON.parse(line) as Envelope;
      if ((query.after === undefined || event.seq > query.after) && keep(event)) yield event;
    }
  }
}
