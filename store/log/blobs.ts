import { createHash } from 'node:crypto';
import type { Database, RootDatabase } from 'lmdb';

/** A blob's key: the first 16 bytes of the SHA-256 of what it holds (collisions: 2^-64 after 2^32 blobs). */
export type BlobKey = Buffer;

const digest = (...parts: Array<string | Buffer>): BlobKey => {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part);
  return hash.digest().subarray(0, 16);
};

/**
 * The key of each list node already hashed, by its item: a prompt's history is the same message objects turn after
 * turn, and hashing every one of them again for each prompt was most of a prompt's write. An item is keyed by its
 * object, which holds because published data is never changed (the log writes an event a turn of the event loop
 * after its publisher handed it over); the key of the list before it is checked, as one item may end two lists.
 */
const nodeKeys = new WeakMap<object, { previous: BlobKey | null; key: BlobKey }>();

function nodeKey(previous: BlobKey | null, item: unknown): BlobKey {
  const held = typeof item === 'object' && item !== null ? item : undefined;
  const known = held && nodeKeys.get(held);
  if (known && (known.previous === previous || (known.previous && previous?.equals(known.previous)))) return known.key;
  const key = digest('l', previous ?? '', JSON.stringify(item));
  if (held) nodeKeys.set(held, { previous, key });
  return key;
}

/** One link of a stored list: the list before it (absent for the first item) and its last item. */
type ListNode = [BlobKey | null, unknown];

/** A stored list: the key of its last node and its length (an empty list has no node). */
export interface ListRef {
  key: BlobKey | null;
  count: number;
}

export const isBlobKey = (value: unknown): value is BlobKey => value instanceof Uint8Array && value.length === 16;

/**
 * The log's content-addressed values (`blobs` table, in the log's lmdb environment): each is stored once under the
 * hash of its JSON, however many events name it. A list is stored as linked nodes, each keyed by the hash of the
 * list up to it, so two lists with the same start share their nodes: a prompt's history adds only its new messages.
 */
export class BlobStore {
  constructor(readonly db: Database<unknown, BlobKey>) {}

  static open(root: RootDatabase): BlobStore | undefined {
    const db = root.openDB<unknown, BlobKey>({ name: 'blobs', keyEncoding: 'binary' });
    return db ? new BlobStore(db as Database<unknown, BlobKey>) : undefined;
  }

  /** Stores `value` unless stored already; call inside the transaction that writes the event naming it. */
  put(value: unknown): BlobKey {
    const key = digest('v', JSON.stringify(value));
    if (!this.db.doesExist(key)) void this.db.put(key, value);
    return key;
  }

  get(key: BlobKey): unknown {
    const value = this.db.get(Buffer.from(key));
    if (value === undefined) throw new BlobMissingError(key);
    return value;
  }

  /** Stores the nodes of `items` not stored yet: from the end back to the first one found (its start is there too). */
  putList(items: readonly unknown[]): ListRef {
    const keys: BlobKey[] = [];
    let previous: BlobKey | null = null;
    for (const item of items) {
      previous = nodeKey(previous, item);
      keys.push(previous);
    }
    let i = items.length - 1;
    while (i >= 0 && !this.db.doesExist(keys[i]!)) i--;
    for (let n = i + 1; n < items.length; n++) {
      void this.db.put(keys[n]!, [n > 0 ? keys[n - 1]! : null, items[n]] satisfies ListNode);
    }
    return { key: keys.at(-1) ?? null, count: items.length };
  }

  getList(ref: ListRef): unknown[] {
    const items = new Array<unknown>(ref.count);
    let key = ref.key;
    for (let n = ref.count - 1; n >= 0; n--) {
      if (!key) throw new BlobMissingError(Buffer.alloc(16));
      const [previous, item] = this.get(key) as ListNode;
      items[n] = item;
      key = previous;
    }
    return items;
  }

  /** Every blob key, for a compaction that keeps only the ones still named. */
  *keys(): Generator<BlobKey> {
    for (const key of this.db.getKeys({ snapshot: false })) yield key;
  }

  raw(key: BlobKey): unknown {
    return this.db.get(Buffer.from(key));
  }

  putRaw(key: BlobKey, value: unknown): void {
    void this.db.put(Buffer.from(key), value);
  }
}

export class BlobMissingError extends Error {
  readonly code = 'blob_missing';
  constructor(key: BlobKey) {
    super(`the event log has no blob ${Buffer.from(key).toString('hex')}: the event naming it cannot be read in full`);
    this.name = 'BlobMissingError';
  }
}
