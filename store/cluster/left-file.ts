import {
  closeSync,
  existsSync,
  ftruncateSync,
  openSync,
  readFileSync,
  renameSync,
  writeFileSync,
  writeSync,
} from 'node:fs';

/** A file this long is rewritten with the marks still unacknowledged: a line per part sent, ~80 bytes each. */
const COMPACT_AFTER_BYTES = 256 * 1024;

/**
 * A member's `left` marks the NATS server has not acknowledged, on its own disk (#40): a line per mark, written with a
 * plain `write` before the part's request is (as the single gateway's `store/log/send-journal.ts`), so that a member
 * killed before it could write them again to NATS still has them when it is started again on the same home. The
 * write survives the process being killed (it is in the page cache), not the machine losing power.
 */
export class LeftFile {
  private fd: number;
  private bytes: number;

  private constructor(
    private readonly path: string,
    /** The marks the previous run wrote and never saw acknowledged. */
    readonly restored: readonly string[],
  ) {
    this.fd = openSync(path, 'a');
    this.bytes = restored.reduce((sum, key) => sum + Buffer.byteLength(key) + 1, 0);
  }

  static open(path: string): LeftFile {
    const keys = existsSync(path) ? readFileSync(path, 'utf8').split('\n').filter(Boolean) : [];
    return new LeftFile(path, [...new Set(keys)]);
  }

  /** `key`'s mark is about to be written to NATS. */
  add(key: string): void {
    this.bytes += writeSync(this.fd, `${key}\n`);
  }

  /** A mark was acknowledged (or no longer matters); `unconfirmed` are those that still may be lost. */
  settled(unconfirmed: ReadonlyMap<string, unknown>): void {
    if (unconfirmed.size === 0 && this.bytes > 0) {
      ftruncateSync(this.fd, 0);
      this.bytes = 0;
    } else if (this.bytes > COMPACT_AFTER_BYTES) this.rewrite(unconfirmed);
  }

  close(): void {
    closeSync(this.fd);
  }

  /** Replaces the file in one rename, so a crash meanwhile leaves the old file or the new one, never half of one. */
  private rewrite(unconfirmed: ReadonlyMap<string, unknown>): void {
    const next = `${this.path}.next`;
    const text = [...unconfirmed.keys()].map((key) => `${key}\n`).join('');
    writeFileSync(next, text);
    renameSync(next, this.path);
    closeSync(this.fd);
    this.fd = openSync(this.path, 'a');
    this.bytes = Buffer.byteLength(text);
  }
}
