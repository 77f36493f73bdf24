import type { Database, RootDatabase } from 'lmdb';

/**
 * The log's dictionary of strings its events repeat (types, session ids, machine states): `names` table, in the log's
 * lmdb environment, each string under a small number and the number under the string. An event names each by its
 * number (a byte or two) instead of spelling it again (a session id is 70 bytes, in every event of the session).
 * Only strings from a bounded set are given numbers (not turn ids): the table and the caches stay small.
 */
export class Names {
  private readonly numbers = new Map<string, number>();
  private readonly strings = new Map<number, string>();
  private next: number | undefined;

  constructor(readonly db: Database<string | number, string | number>) {}

  static open(root: RootDatabase): Names | undefined {
    const db = root.openDB<string | number, string | number>({ name: 'names' });
    return db ? new Names(db as Database<string | number, string | number>) : undefined;
  }

  /** The number of `name`, given one if it has none; call inside the transaction that writes the event naming it. */
  number(name: string): number {
    const known = this.numbers.get(name) ?? (this.db.get(name) as number | undefined);
    if (known !== undefined) {
      this.numbers.set(name, known);
      return known;
    }
    this.next ??= this.highest() + 1;
    const number = this.next++;
    void this.db.put(name, number);
    void this.db.put(number, name);
    this.numbers.set(name, number);
    return number;
  }

  name(number: number): string {
    const known = this.strings.get(number) ?? (this.db.get(number) as string | undefined);
    if (known === undefined) throw new NameMissingError(number);
    this.strings.set(number, known);
    return known;
  }

  /** After a write that failed: numbers given in it were never stored, so every cached one is read again. */
  forget(): void {
    this.numbers.clear();
    this.next = undefined;
  }

  /** Numbers sort before strings in lmdb's key order: the highest is the first key down from the largest one. */
  private highest(): number {
    for (const key of this.db.getKeys({ start: 0xffffffff, reverse: true, limit: 1, snapshot: false })) {
      if (typeof key === 'number') return key;
    }
    return 0;
  }
}

export class NameMissingError extends Error {
  readonly code = 'name_missing';
  constructor(number: number) {
    super(`the event log has no name ${number}: an event naming it cannot be read in full`);
    this.name = 'NameMissingError';
  }
}
