import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Unpackr } from 'msgpackr';
import type { Envelope } from '../../bus/index.js';
import { LogError } from './errors.js';
import { LmdbFile, type Damage, type Entry, type TableRecord } from './lmdb-file.js';

/** The tables an event log has (`event-log.ts`). */
const TABLES = ['events', 'by_session', 'by_turn', 'by_type'] as const;
/** Problems of one kind listed one by one before the rest are counted. */
const LISTED = 5;

/** What `tern log verify` found: the events the log's tree gives back, and every problem. */
export interface LogCheck {
  file: string;
  bytes: number;
  /** Events read through the log's tree, as lmdb would read them. */
  readable: number;
  /** The seq the log says it has reached (its events table's count), when that much can be read. */
  committed: number | undefined;
  problems: string[];
}

/** The seqs read, one bit each (a million events in 128 KB): a check keeps no event in memory. */
export class FoundSeqs {
  private bits = new Uint8Array(4096);
  size = 0;
  highest = 0;

  has(seq: number): boolean {
    const byte = Math.floor(seq / 8);
    return byte < this.bits.length && (this.bits[byte]! & (1 << (seq % 8))) !== 0;
  }

  add(seq: number): void {
    if (this.has(seq)) return;
    const byte = Math.floor(seq / 8);
    if (byte >= this.bits.length) {
      const grown = new Uint8Array(Math.max(byte + 1, this.bits.length * 2));
      grown.set(this.bits);
      this.bits = grown;
    }
    this.bits[byte]! |= 1 << (seq % 8);
    this.size++;
    this.highest = Math.max(this.highest, seq);
  }
}

/**
 * What can be read back from a log, damaged or not, for `tern log salvage`: the seqs, and the events only the scan of
 * leaf pages found (the rest are read again, in order, by `treeEvents`).
 */
export interface Readable {
  found: FoundSeqs;
  recovered: Map<number, Envelope>;
  /** The last committed seq, when the log's record of it can be read; else the highest seq found. */
  lastSeq: number;
  check: LogCheck;
}

const eventsKey = (entry: Entry): number | undefined =>
  entry.key.length === 4 ? entry.key.readUInt32LE(0) : undefined;

/** An envelope as the log stores it, at its own key; anything else (garbage a damaged page decodes to) is not one. */
function asEnvelope(value: unknown, seq: number): Envelope | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const event = value as Partial<Envelope>;
  // A type is a string, or the number of one in the `names` table (`named-form.ts`).
  const typed = typeof event.type === 'string' || typeof event.type === 'number';
  if (event.seq !== seq || !typed || typeof event.at !== 'number') return undefined;
  if (typeof event.data !== 'object') return undefined;
  return event as Envelope;
}

/** lmdb's msgpack records name shared structures kept at key 0; an older copy of that list is a prefix of a newer. */
function structuresOf(value: Buffer): unknown[][] | undefined {
  try {
    const list = new Unpackr().unpack(value) as unknown;
    const names = (s: unknown): boolean => Array.isArray(s) && s.every((k) => typeof k === 'string');
    if (Array.isArray(list) && list.every(names)) return list as unknown[][];
  } catch {
    // Not a structure list.
  }
  return undefined;
}

class Decoder {
  private unpackr: Unpackr | undefined;

  use(structures: unknown[][]): void {
    this.unpackr = new Unpackr({ structures: structures.map((s) => [...s]) as never });
  }

  get ready(): boolean {
    return this.unpackr !== undefined;
  }

  envelope(value: Buffer, seq: number): Envelope | undefined {
    if (!this.unpackr) return undefined;
    try {
      return asEnvelope(this.unpackr.unpack(value), seq);
    } catch {
      return undefined;
    }
  }
}

/** Consecutive numbers as ranges: [1, 2, 3, 7] → "1–3, 7". */
export function ranges(seqs: number[]): string {
  const sorted = [...seqs].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length; i++) {
    const start = sorted[i]!;
    while (i + 1 < sorted.length && sorted[i + 1] === sorted[i]! + 1) i++;
    parts.push(start === sorted[i] ? `${start}` : `${start}–${sorted[i]}`);
  }
  return parts.length > 8 ? `${parts.slice(0, 8).join(', ')} and ${parts.length - 8} more ranges` : parts.join(', ');
}

function listed(problems: string[], found: Damage[], kind: string): void {
  for (const damage of found.slice(0, LISTED)) problems.push(`${kind}: ${damage.what}`);
  if (found.length > LISTED) problems.push(`${kind}: ${found.length - LISTED} more damaged places`);
}

/**
 * Reads a log's file without lmdb (`lmdb-file.ts`): its meta pages, the tree of each table, every event (decoded and
 * at its own seq), the seqs 1…last without a hole, and the indexes pointing only at events that are there. With
 * `scan`, every leaf page of the file is read as well, for events a damaged branch cut off from the tree.
 */
export function readLog(dir: string, options: { scan: boolean }): Readable {
  const path = join(dir, 'data.mdb');
  if (!existsSync(path)) throw new LogError('log_missing', `no event log in ${dir}`);
  const file = LmdbFile.open(path);
  const problems: string[] = [];
  const found = new FoundSeqs();
  const recovered = new Map<number, Envelope>();
  const decoder = new Decoder();
  const check: LogCheck = { file: path, bytes: file.bytes, readable: 0, committed: undefined, problems };
  try {
    for (const meta of file.metas) {
      if (!('txnid' in meta)) problems.push(`${meta.what} (lmdb may crash opening this log)`);
    }
    const meta = file.current();
    let tables = new Map<string, TableRecord>();
    if (!meta) problems.push('no meta page is intact: lmdb cannot open this log');
    else {
      if (file.pages <= meta.lastPage) {
        problems.push(`the file is cut short: it has ${file.pages} pages, its meta page names page ${meta.lastPage}`);
      }
      const found = file.tables(meta.main);
      listed(problems, found.damage, 'the table of tables');
      tables = found.tables;
      for (const name of TABLES) if (!tables.has(name)) problems.push(`the ${name} table cannot be found`);
    }
    const table = tables.get('events');
    if (table) {
      const damage: Damage[] = [];
      const pending: Array<{ seq: number; value: Buffer }> = [];
      let bad = 0;
      /** The last `log.compacted` or `data.forgotten`: seqs before it may be gone on purpose (#38). */
      let rewrittenAt = 0;
      for (const walked of file.walk(table)) {
        if (walked.kind === 'damage') {
          damage.push(walked.damage);
          continue;
        }
        const seq = eventsKey(walked.entry);
        if (seq === 0) {
          const structures = structuresOf(walked.entry.value);
          if (structures) decoder.use(structures);
          else problems.push('the record shapes (key 0 of the events table) cannot be read: no event can be decoded');
          continue;
        }
        if (seq !== undefined && !decoder.ready) {
          pending.push({ seq, value: walked.entry.value });
          continue;
        }
        const event = seq === undefined ? undefined : decoder.envelope(walked.entry.value, seq);
        if (event) found.add(event.seq);
        else bad++;
        if (event && (event.type === 'log.compacted' || event.type === 'data.forgotten')) rewrittenAt = event.seq;
      }
      listed(problems, damage, 'the events table');
      if (!decoder.ready) bad += decodeWithCopy(file, tables.get('shapes'), decoder, pending, found, problems);
      if (bad > 0) problems.push(`${bad} events cannot be decoded`);
      check.readable = found.size;
      // Key 0 holds the record shapes; every other key is one event, so the count is the last committed seq.
      // A compacted log has holes where events were archived: its count is its highest seq, checked from there on.
      check.committed = rewrittenAt > 0 ? found.highest : Math.max(0, table.entries - 1);
      const missing: number[] = [];
      for (let seq = rewrittenAt + 1; seq <= check.committed; seq++) if (!found.has(seq)) missing.push(seq);
      if (missing.length > 0) {
        problems.push(`${missing.length} of ${check.committed} events cannot be read (seq ${ranges(missing)})`);
      }
      checkIndexes(file, tables, check.committed, problems);
    }
    // With a meta page damaged, the other one may be an older state of the log: its count is no limit.
    const trusted = file.metas.every((m) => 'txnid' in m) ? check.committed : undefined;
    if (options.scan) scanLeaves(file, decoder, found, recovered, trusted);
    if (!decoder.ready && found.size === 0 && check.committed !== 0) {
      problems.push('the record shapes cannot be found anywhere in the file: no event can be decoded');
    }
    return { found, recovered, lastSeq: Math.max(trusted ?? 0, found.highest), check };
  } finally {
    file.close();
  }
}

/**
 * Events read before any record shapes were (the page with key 0 is damaged): decoded with the copy of the shapes the
 * log keeps in its `shapes` table. Returns how many cannot be decoded.
 */
function decodeWithCopy(
  file: LmdbFile,
  table: TableRecord | undefined,
  decoder: Decoder,
  pending: Array<{ seq: number; value: Buffer }>,
  found: FoundSeqs,
  problems: string[],
): number {
  useCopiedShapes(file, table, decoder);
  if (decoder.ready) problems.push('the record shapes were read from their copy (the shapes table)');
  let bad = 0;
  for (const { seq, value } of pending) {
    if (decoder.envelope(value, seq)) found.add(seq);
    else bad++;
  }
  return bad;
}

function useCopiedShapes(file: LmdbFile, table: TableRecord | undefined, decoder: Decoder): void {
  for (const walked of table ? file.walk(table) : []) {
    const shapes = walked.kind === 'entry' && eventsKey(walked.entry) === 0;
    const structures = shapes ? structuresOf(walked.entry.value) : undefined;
    if (structures) decoder.use(structures);
  }
}

/** The raw entries of the log's `blobs` table (#38) that can be read, for a salvage to copy as they are. */
export function* treeBlobs(dir: string, name: 'blobs' | 'names' = 'blobs'): Generator<Entry> {
  const file = LmdbFile.open(join(dir, 'data.mdb'));
  try {
    const meta = file.current();
    const table = meta ? file.tables(meta.main).tables.get(name) : undefined;
    for (const walked of table ? file.walk(table) : []) if (walked.kind === 'entry') yield walked.entry;
  } finally {
    file.close();
  }
}

/**
 * The events `readLog` read through the log's tree, read again in seq order, one at a time: a salvage writes them on
 * as they come instead of holding the log in memory.
 */
export function* treeEvents(dir: string): Generator<Envelope> {
  const file = LmdbFile.open(join(dir, 'data.mdb'));
  try {
    const meta = file.current();
    const tables = meta ? file.tables(meta.main).tables : new Map<string, TableRecord>();
    const table = tables.get('events');
    if (!table) return;
    const decoder = new Decoder();
    // As `readLog` does when the page with key 0 is damaged; otherwise key 0, read first, gives the same shapes.
    useCopiedShapes(file, tables.get('shapes'), decoder);
    for (const walked of file.walk(table)) {
      if (walked.kind !== 'entry') continue;
      const seq = eventsKey(walked.entry);
      if (seq === 0) {
        const structures = structuresOf(walked.entry.value);
        if (structures) decoder.use(structures);
        continue;
      }
      const event = seq === undefined ? undefined : decoder.envelope(walked.entry.value, seq);
      if (event) yield event;
    }
  } finally {
    file.close();
  }
}

/** The index tables map ids to lists of seqs (4-byte numbers): each must name an event that is there. */
function checkIndexes(file: LmdbFile, tables: Map<string, TableRecord>, committed: number, problems: string[]): void {
  for (const name of TABLES.slice(1)) {
    const table = tables.get(name);
    if (!table) continue;
    const damage: Damage[] = [];
    const dangling: number[] = [];
    for (const walked of file.walk(table)) {
      if (walked.kind === 'damage') {
        damage.push(walked.damage);
        continue;
      }
      const { value } = walked.entry;
      if (value.length % 4 !== 0) {
        damage.push({ page: walked.page, what: `page ${walked.page} holds a list of events of a broken length` });
        continue;
      }
      for (let at = 0; at < value.length; at += 4) {
        const seq = value.readUInt32LE(at);
        if (seq === 0 || seq > committed) dangling.push(seq);
      }
    }
    listed(problems, damage, `the ${name} index`);
    if (dangling.length > 0) {
      const seqs = ranges(dangling);
      problems.push(`the ${name} index names ${dangling.length} events the log does not have (seq ${seqs})`);
    }
  }
}

/**
 * Events on leaf pages the tree does not reach: copies of events a damaged branch cut off (older copies of pages hold
 * the same events: nothing in the log is ever changed). Past the last committed seq are only writes that never
 * committed: those are left out.
 */
function scanLeaves(
  file: LmdbFile,
  decoder: Decoder,
  found: FoundSeqs,
  recovered: Map<number, Envelope>,
  committed: number | undefined,
): void {
  const copies: Array<{ seq: number; value: Buffer }> = [];
  let shapes: unknown[][] | undefined;
  for (const { entry } of file.scanLeaves()) {
    const seq = eventsKey(entry);
    if (seq === undefined) continue;
    if (seq === 0) {
      const structures = structuresOf(entry.value);
      if (structures && structures.length > (shapes?.length ?? -1)) shapes = structures;
    } else if (!found.has(seq) && (committed === undefined || seq <= committed)) {
      copies.push({ seq, value: entry.value });
    }
  }
  if (!decoder.ready && shapes) decoder.use(shapes);
  for (const { seq, value } of copies) {
    if (found.has(seq)) continue;
    const event = decoder.envelope(value, seq);
    if (!event) continue;
    found.add(seq);
    recovered.set(seq, event);
  }
}
