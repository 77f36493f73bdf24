import { closeSync, existsSync, openSync, readFileSync, renameSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';

const FILE = 'sending.journal';
/** A journal this long is rewritten with the parts still unsettled: it holds a key per part sent, ~60 bytes each. */
const COMPACT_AFTER_BYTES = 256 * 1024;

/**
 * Which reply parts may have left the process: a line per part, written with a plain `write` as the part leaves (its
 * request is written, or it is handed to a channel that cannot tell that; `actors/gateway/outbox.ts`). The part's
 * `message.sending` in the log cannot say that on its own: an event is in the log (and read there after a crash) some
 * time before the writer hears it is, and under a burst of replies that was ~100 ms in which nothing had been sent yet.
 * After a crash, a part whose intent is in the log but not here never left and is sent again; one that is here may have
 * reached the chat and is not (`actors/recovery.ts`).
 *
 * The write survives the process being killed (it is in the page cache), not the machine losing power: after a power
 * loss a part may be sent twice.
 */
/** A journal in the process's own file (this one): a part is marked as its request's first byte is written. */
export type LocalJournal = Pick<SendJournal, 'kind' | 'before' | 'mark' | 'settle' | 'restart' | 'close'>;

/**
 * A journal the member taking a cluster account over reads (`store/cluster/send-marks.ts`): a part's `leaving` mark is
 * stored, acknowledged, before its request is dispatched (`store`), its `left` mark is written as the request's first
 * byte is (`left`, which throws when the request must not be written), and both are taken back when the request fails
 * before its first byte is written or the platform certainly did not take it (`unmark`).
 */
export interface SharedJournal {
  readonly kind: 'shared';
  readonly before: ReadonlySet<string> | undefined;
  store(key: string): Promise<void>;
  left(key: string): void;
  unmark(key: string): void;
  settle(key: string): void;
  restart(): void;
  close(): void;
}

/** What the runtime needs of a send journal: this file, or a cluster account's marks. */
export type PartJournal = LocalJournal | SharedJournal;

export class SendJournal {
  readonly kind = 'local';
  private fd: number;
  private bytes = 0;
  private readonly unsettled = new Set<string>();

  private constructor(
    private readonly path: string,
    /** The keys the previous run marked; undefined when it kept no journal (it ran before the journal existed). */
    readonly before: ReadonlySet<string> | undefined,
  ) {
    this.fd = openSync(path, 'a');
  }

  /** The journal of the log in `dir`, with what the previous run marked. */
  static open(dir: string): SendJournal {
    const path = join(dir, FILE);
    const before = existsSync(path) ? new Set(readFileSync(path, 'utf8').split('\n').filter(Boolean)) : undefined;
    return new SendJournal(path, before);
  }

  /**
   * Starts this run's journal with `keys` (the previous run's parts still in doubt, so that a second crash before
   * they leave the log's tail still knows them).
   */
  restart(keys: Iterable<string>): void {
    this.unsettled.clear();
    for (const key of keys) this.unsettled.add(key);
    this.rewrite();
  }

  /** The part under `key` goes to its channel now. */
  mark(key: string): void {
    this.unsettled.add(key);
    this.bytes += writeSync(this.fd, `${key}\n`);
    if (this.bytes > COMPACT_AFTER_BYTES) this.rewrite();
  }

  /** The part's outcome (`message.sent`) is in the log: the journal no longer needs to know it. */
  settle(key: string): void {
    this.unsettled.delete(key);
  }

  close(): void {
    closeSync(this.fd);
  }

  /** Replaces the file in one rename, so a crash meanwhile leaves the old journal or the new one, never half of one. */
  private rewrite(): void {
    const next = `${this.path}.next`;
    const text = [...this.unsettled].map((key) => `${key}\n`).join('');
    writeFileSync(next, text);
    this.bytes = Buffer.byteLength(text);
    renameSync(next, this.path);
    closeSync(this.fd);
    this.fd = openSync(this.path, 'a');
  }
}
