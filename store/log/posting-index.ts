import type { Database, RootDatabase } from 'lmdb';

type ChunkKey = [string, number];
const MAX_SEQ = 0xffffffff;
/** A list grows by each batch until it holds this many seqs (1 KB: lmdb keeps it on its leaf page), then a new one. */
const LIST_SEQS = 256;
/**
 * How many ids' last lists a writer keeps (the sessions, turns and types written lately): with 100 turns in flight a
 * batch names some 200 ids, and reading each one's last list back from the tree cost more than writing it.
 */
const KEPT_LISTS = 1024;

interface List {
  key: ChunkKey;
  value: Buffer;
}

function encode(seqs: number[]): Buffer {
  const buffer = Buffer.allocUnsafe(seqs.length * 4);
  seqs.forEach((seq, i) => buffer.writeUInt32LE(seq, i * 4));
  return buffer;
}

function* decode(buffer: Buffer, reverse: boolean): Generator<number> {
  const count = buffer.length / 4;
  for (let i = 0; i < count; i++) yield buffer.readUInt32LE((reverse ? count - 1 - i : i) * 4);
}

/**
 * A secondary index from an id (session, turn) to the `seq`s of its events, in posting lists keyed `[id, first seq]`:
 * lists of one id never overlap and sort by their first seq. A write batch adds its seqs of an id to that id's last
 * list, until the list is full: a key (an id spelled out) per batch cost more than the seqs it held.
 */
export class PostingIndex {
  /** The last list of the ids written lately, as this process wrote it (oldest first: `Map` keeps insertion order). */
  private readonly lasts = new Map<string, List>();

  private constructor(readonly db: Database<Buffer, ChunkKey>) {}

  /** Undefined when the database does not exist and the environment is read-only. */
  static open(root: RootDatabase, name: string): PostingIndex | undefined {
    const db = root.openDB<Buffer, ChunkKey>({ name, encoding: 'binary' }) as Database<Buffer, ChunkKey> | undefined;
    return db ? new PostingIndex(db) : undefined;
  }

  /** Writes one batch's postings; call inside the transaction that writes their events. */
  write(postings: Map<string, number[]>): void {
    for (const [id, seqs] of postings) {
      const last = this.lasts.get(id) ?? this.lastList(id);
      const list =
        last && last.value.length < LIST_SEQS * 4
          ? { key: last.key, value: Buffer.concat([last.value, encode(seqs)]) }
          : { key: [id, seqs[0]!] as ChunkKey, value: encode(seqs) };
      void this.db.put(list.key, list.value);
      this.lasts.delete(id);
      this.lasts.set(id, list);
      if (this.lasts.size > KEPT_LISTS) this.lasts.delete(this.lasts.keys().next().value!);
    }
  }

  /** Drops the lists kept: the transaction that wrote the last ones failed, so the tree never got them. */
  forget(): void {
    this.lasts.clear();
  }

  private lastList(id: string): List | undefined {
    const range = { start: [id, MAX_SEQ] as ChunkKey, end: [id, -1] as ChunkKey, reverse: true, limit: 1 };
    for (const { key, value } of this.db.getRange({ ...range, snapshot: false })) return { key, value };
    return undefined;
  }

  /** Every id starting with `prefix`, in order: one key lookup per id, however many lists each has. */
  *ids(prefix: string): Generator<string> {
    let start: ChunkKey = [prefix, -1];
    for (;;) {
      let found: string | undefined;
      for (const key of this.db.getKeys({ start, limit: 1, snapshot: false })) found = key[0];
      if (found === undefined || !found.startsWith(prefix)) return;
      yield found;
      // Past every list of this id: the next key belongs to the next id.
      start = [found, MAX_SEQ + 1];
    }
  }

  /** The seqs of `id` strictly between `after` and `before`, in order. */
  *seqs(id: string, after: number, before: number, reverse: boolean): Generator<number> {
    const inRange = (seq: number) => seq > after && seq < before;
    // The list holding `after + 1` may start before it: begin at the last list starting at or below `after`.
    let low = after + 1;
    for (const key of this.db.getKeys({
      start: [id, after],
      end: [id, -1],
      reverse: true,
      limit: 1,
      snapshot: false,
    })) {
      low = key[1];
    }
    const range = reverse
      ? { start: [id, Math.min(before, MAX_SEQ)] as ChunkKey, end: [id, low - 1] as ChunkKey, reverse: true }
      : { start: [id, low] as ChunkKey, end: [id, Math.min(before, MAX_SEQ)] as ChunkKey };
    for (const { value } of this.db.getRange({ ...range, snapshot: false })) {
      for (const seq of decode(value, reverse)) if (inRange(seq)) yield seq;
    }
  }
}
