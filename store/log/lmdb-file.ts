import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

/**
 * An lmdb data file (`data.mdb`) read page by page with plain file reads, never through lmdb: lmdb trusts its file, and
 * a damaged one made it crash the process (SIGSEGV, SIGBUS, an assertion's abort) where a check must report. The
 * layout is that of the lmdb lmdb-js builds (LMDB 1.0's format, version 2): 24-byte page headers, two meta pages.
 */

const MDB_MAGIC = 0xbeefc0de;
const MDB_DATA_VERSION = 2;
const PAGE_HEADER = 24;
const P_BRANCH = 0x01;
const P_LEAF = 0x02;
const P_OVERFLOW = 0x04;
const P_META = 0x08;
const F_BIGDATA = 0x01;
const F_SUBDATA = 0x02;
const F_DUPDATA = 0x04;
/** lmdb's "no page": the root of an empty table. */
const P_INVALID = 0xffff_ffff_ffff_ffffn;
/** Deeper than any B-tree of 2^32 keys: a deeper path loops through damaged pages. */
const MAX_DEPTH = 32;

/** A table's record: in a meta page (the main table) or in the main table (a named one). */
export interface TableRecord {
  flags: number;
  depth: number;
  entries: number;
  /** Undefined for an empty table. */
  root: number | undefined;
}

export interface Meta {
  /** 0 or 1: the page it is on. */
  page: number;
  txnid: number;
  pageSize: number;
  lastPage: number;
  main: TableRecord;
}

/** Something found wrong, with the page it was found on when there is one. */
export interface Damage {
  page?: number;
  what: string;
}

export interface Entry {
  key: Buffer;
  value: Buffer;
}

/** A key and value a walk reached, or the damage that stopped it below some branch. */
export type Walked = { kind: 'entry'; page: number; entry: Entry } | { kind: 'damage'; damage: Damage };

function readU64(buffer: Buffer, offset: number): number {
  return Number(buffer.readBigUInt64LE(offset));
}

/** A branch node's child: a 48-bit page number in three 16-bit parts. */
function childOf(page: Buffer, offset: number): number {
  const [low, middle, high] = [page.readUInt16LE(offset), page.readUInt16LE(offset + 2), page.readUInt16LE(offset + 4)];
  return low + middle * 0x10000 + high * 0x1_0000_0000;
}

const misplaced = (page: number): Damage => ({
  page,
  what: `page ${page} holds something else (its header names another page)`,
});

const notInTree = (page: number, flags: number): Damage => ({
  page,
  what: `page ${page} should be a branch or leaf of the tree, but its kind is 0x${flags.toString(16)}`,
});

const tooBig = (page: number): Damage => ({ page, what: `page ${page} has a node that does not fit in it` });

function tableAt(buffer: Buffer, offset: number): TableRecord {
  const root = buffer.readBigUInt64LE(offset + 40);
  return {
    flags: buffer.readUInt16LE(offset + 4),
    depth: buffer.readUInt16LE(offset + 6),
    entries: readU64(buffer, offset + 32),
    root: root === P_INVALID ? undefined : Number(root),
  };
}

export class LmdbFile {
  private constructor(
    private readonly fd: number,
    readonly bytes: number,
    readonly pageSize: number,
    /** The meta pages as read; a damaged one is a `Damage`. */
    readonly metas: ReadonlyArray<Meta | Damage>,
  ) {}

  static open(path: string): LmdbFile {
    const fd = openSync(path, 'r');
    try {
      const bytes = fstatSync(fd).size;
      const first = readMeta(fd, 0, 0);
      // Meta page 1 starts one page in: at the size meta page 0 gives, or where an intact page 1 is found.
      const sizes = 'pageSize' in first ? [first.pageSize] : PAGE_SIZES;
      const second = sizes.map((size) => readMeta(fd, 1, size)).find((m) => 'txnid' in m) ?? readMeta(fd, 1, sizes[0]!);
      const metas = [first, second];
      const good = metas.find((m): m is Meta => 'txnid' in m);
      return new LmdbFile(fd, bytes, good?.pageSize ?? 4096, metas);
    } catch (error) {
      closeSync(fd);
      throw error;
    }
  }

  get pages(): number {
    return Math.floor(this.bytes / this.pageSize);
  }

  /** The meta page lmdb opens with: the valid one with the newest transaction. */
  current(): Meta | undefined {
    const valid = this.metas.filter((m): m is Meta => 'txnid' in m);
    return valid.sort((a, b) => b.txnid - a.txnid)[0];
  }

  close(): void {
    closeSync(this.fd);
  }

  /** One page's bytes, or the damage that makes it unreadable (past the end of the file). */
  page(pgno: number): Buffer | Damage {
    if (!Number.isSafeInteger(pgno) || pgno < 2 || pgno >= this.pages) {
      return { page: pgno, what: `page ${pgno} is outside the file (${this.pages} pages)` };
    }
    const buffer = Buffer.alloc(this.pageSize);
    readSync(this.fd, buffer, 0, this.pageSize, pgno * this.pageSize);
    return buffer;
  }

  /** Every key and value of a table, in key order, walking its B-tree from the root; damage is reported where met. */
  *walk(table: TableRecord): Generator<Walked> {
    if (table.root === undefined) return;
    yield* this.walkPage(table.root, 0, new Set());
  }

  /**
   * Follows a table's tree from its root along its last child down to its last leaf: the path lmdb reads first (for
   * the newest key). The first damage on it, if any.
   */
  lastPath(table: TableRecord): Damage | undefined {
    let pgno = table.root;
    for (let depth = 0; pgno !== undefined; depth++) {
      const page = this.page(pgno);
      if (!Buffer.isBuffer(page)) return page;
      if (depth > MAX_DEPTH || readU64(page, 0) !== pgno) return misplaced(pgno);
      const nodes = this.nodes(page, pgno);
      if (!Array.isArray(nodes)) return nodes;
      const flags = page.readUInt16LE(18);
      if (flags === P_LEAF) return undefined;
      if (flags !== P_BRANCH || nodes.length === 0) return notInTree(pgno, flags);
      pgno = childOf(page, nodes.at(-1)!);
    }
    return undefined;
  }

  /** The named tables of the main table (`events`, `by_session`, …) and their records. */
  tables(main: TableRecord): { tables: Map<string, TableRecord>; damage: Damage[] } {
    const tables = new Map<string, TableRecord>();
    const damage: Damage[] = [];
    for (const walked of this.walk(main)) {
      if (walked.kind === 'damage') damage.push(walked.damage);
      else if (walked.entry.value.length >= 48) {
        tables.set(walked.entry.key.toString('utf8').replace(/\0$/, ''), tableAt(walked.entry.value, 0));
      }
    }
    return { tables, damage };
  }

  /**
   * Every leaf entry on every page of the file that reads as a leaf, whether or not a tree reaches it (pages a damaged
   * branch cut off, and older copies of pages): what a salvage can take from a file whose tree is broken.
   */
  *scanLeaves(): Generator<{ page: number; entry: Entry }> {
    for (let pgno = 2; pgno < this.pages; pgno++) {
      const page = this.page(pgno);
      if (!Buffer.isBuffer(page) || page.readUInt16LE(18) !== P_LEAF || readU64(page, 0) !== pgno) continue;
      const nodes = this.nodes(page, pgno);
      if (!Array.isArray(nodes)) continue;
      for (const offset of nodes) {
        const entry = this.leafEntry(page, pgno, offset);
        if ('key' in entry) yield { page: pgno, entry };
      }
    }
  }

  private *walkPage(pgno: number, depth: number, seen: Set<number>): Generator<Walked> {
    if (depth > MAX_DEPTH || seen.has(pgno)) {
      yield { kind: 'damage', damage: { page: pgno, what: `page ${pgno} is reached twice: the tree loops` } };
      return;
    }
    seen.add(pgno);
    const page = this.page(pgno);
    if (!Buffer.isBuffer(page)) return void (yield { kind: 'damage', damage: page });
    const flags = page.readUInt16LE(18);
    if (readU64(page, 0) !== pgno) {
      yield { kind: 'damage', damage: misplaced(pgno) };
      return;
    }
    const nodes = this.nodes(page, pgno);
    if (!Array.isArray(nodes)) return void (yield { kind: 'damage', damage: nodes });
    if (flags === P_BRANCH) {
      for (const offset of nodes) {
        yield* this.walkPage(childOf(page, offset), depth + 1, seen);
      }
      return;
    }
    if (flags !== P_LEAF) {
      yield { kind: 'damage', damage: notInTree(pgno, flags) };
      return;
    }
    for (const offset of nodes) {
      const entry = this.leafEntry(page, pgno, offset);
      if ('key' in entry) yield { kind: 'entry', page: pgno, entry };
      else yield { kind: 'damage', damage: entry };
    }
  }

  /**
   * The offsets of a page's nodes, checked to lie inside the page. The header's `lower` (2 bytes per node pointer) and
   * `upper` (where the nodes begin), like the pointers, count from the header's end: a full page has `lower` = `upper`.
   */
  private nodes(page: Buffer, pgno: number): number[] | Damage {
    const lower = page.readUInt16LE(20);
    const upper = page.readUInt16LE(22);
    if (lower % 2 !== 0 || lower > upper || PAGE_HEADER + upper > this.pageSize) {
      return { page: pgno, what: `page ${pgno} has a broken header (free space ${lower}–${upper})` };
    }
    const offsets: number[] = [];
    for (let i = 0; i < lower / 2; i++) {
      const pointer = page.readUInt16LE(PAGE_HEADER + i * 2);
      const offset = pointer + PAGE_HEADER;
      if (pointer < upper || offset + 8 > this.pageSize) {
        return { page: pgno, what: `page ${pgno} points at a node outside its data (${offset})` };
      }
      offsets.push(offset);
    }
    return offsets;
  }

  private leafEntry(page: Buffer, pgno: number, offset: number): Entry | Damage {
    const size = page.readUInt16LE(offset) + page.readUInt16LE(offset + 2) * 0x10000;
    const flags = page.readUInt16LE(offset + 4);
    const keySize = page.readUInt16LE(offset + 6);
    const keyEnd = offset + 8 + keySize;
    if (keyEnd > this.pageSize || (flags & F_DUPDATA) !== 0) return tooBig(pgno);
    const key = Buffer.from(page.subarray(offset + 8, keyEnd));
    if ((flags & F_BIGDATA) === 0) {
      if (keyEnd + size > this.pageSize) return tooBig(pgno);
      return { key, value: Buffer.from(page.subarray(keyEnd, keyEnd + size)) };
    }
    if (keyEnd + 8 > this.pageSize || (flags & F_SUBDATA) !== 0) return tooBig(pgno);
    const overflow = readU64(page, keyEnd);
    const first = this.page(overflow);
    if (!Buffer.isBuffer(first)) return { page: pgno, what: `page ${pgno} names page ${overflow}, outside the file` };
    if (first.readUInt16LE(18) !== P_OVERFLOW || readU64(first, 0) !== overflow) {
      return { page: overflow, what: `page ${overflow} should hold a large value (page ${pgno} says), but does not` };
    }
    const pages = first.readUInt32LE(20);
    if (PAGE_HEADER + size > pages * this.pageSize || overflow + pages > this.pages) {
      return { page: overflow, what: `page ${overflow} holds a large value whose size does not match its pages` };
    }
    const value = Buffer.alloc(size);
    readSync(this.fd, value, 0, size, overflow * this.pageSize + PAGE_HEADER);
    return { key, value };
  }
}

/** The page sizes lmdb uses (the system's memory page size): 4 KiB on x86-64 Linux, 16 or 64 KiB elsewhere. */
const PAGE_SIZES = [4096, 16384, 65536, 8192];

function readMeta(fd: number, page: number, at: number): Meta | Damage {
  const buffer = Buffer.alloc(256);
  const read = readSync(fd, buffer, 0, 256, at);
  if (read < 160) return { page, what: `meta page ${page} is missing: the file is cut short` };
  const kind = buffer.readUInt16LE(18);
  if (kind !== P_META) return { page, what: `meta page ${page} is not a meta page (kind 0x${kind.toString(16)})` };
  if (buffer.readUInt32LE(24) !== MDB_MAGIC) return { page, what: `meta page ${page} does not start with lmdb's mark` };
  const version = buffer.readUInt32LE(28);
  if (version !== MDB_DATA_VERSION) {
    return { page, what: `meta page ${page} is of lmdb file version ${version}, not ${MDB_DATA_VERSION}` };
  }
  const pageSize = buffer.readUInt32LE(48);
  if (!PAGE_SIZES.includes(pageSize) || (page === 1 && pageSize !== at)) {
    return { page, what: `meta page ${page} gives a page size of ${pageSize}` };
  }
  return { page, pageSize, txnid: readU64(buffer, 152), lastPage: readU64(buffer, 144), main: tableAt(buffer, 96) };
}
