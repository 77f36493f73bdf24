import { closeSync, existsSync, fstatSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

export interface RotationSettings {
  maxBytes: number;
  /** Numbered archives kept (`file.1` newest); 0 keeps none. */
  backups: number;
}

/** Keeps the newest `maxBytes` of a file, starting at a line boundary so no line is cut in half. */
export function trimToLatest(path: string, maxBytes: number): void {
  if (!existsSync(path) || statSync(path).size <= maxBytes) return;
  const content = readFileSync(path);
  const tail = content.subarray(content.length - maxBytes);
  const newline = tail.indexOf(0x0a);
  writeFileSync(path, newline >= 0 ? tail.subarray(newline + 1) : tail);
}

/**
 * An append-only log file rotated by size: when a line would take it past `maxBytes`, `file` becomes
 * `file.1`, `file.1` becomes `file.2`, … and archives past `backups` are deleted. Writes are synchronous so a
 * crash right after a line still leaves it on disk.
 */
export class RotatingFile {
  /** Undefined once closed: the number may already belong to a file opened since (the event log's, say). */
  private fd: number | undefined;
  private size: number;

  constructor(readonly path: string, private readonly settings: RotationSettings) {
    // Logs hold what chats said: a folder this creates is the owner's alone.
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    trimToLatest(path, settings.maxBytes);
    this.fd = openSync(path, 'a', 0o600);
    this.size = fstatSync(this.fd).size;
  }

  /**
   * A line written after `close()` is dropped: writing it would land in whatever file now has that descriptor. So is a
   * line the disk has no room for (or a rotation that fails): a log line is never worth stopping what it reports on.
   */
  write(line: string): void {
    if (this.fd === undefined) return;
    const bytes = Buffer.from(line.endsWith('\n') ? line : `${line}\n`);
    try {
      if (this.size > 0 && this.size + bytes.length > this.settings.maxBytes) this.rotate();
      if (this.fd === undefined) return;
      this.size += writeSync(this.fd, bytes);
    } catch {
      // ENOSPC, EIO, EDQUOT: the line is lost; the next one is tried again.
    }
  }

  close(): void {
    if (this.fd === undefined) return;
    closeSync(this.fd);
    this.fd = undefined;
  }

  private rotate(): void {
    this.close();
    const { backups } = this.settings;
    rmSync(`${this.path}.${backups}`, { force: true });
    for (let n = backups - 1; n >= 1; n--) {
      if (existsSync(`${this.path}.${n}`)) renameSync(`${this.path}.${n}`, `${this.path}.${n + 1}`);
    }
    if (backups > 0) renameSync(this.path, `${this.path}.1`);
    this.fd = openSync(this.path, 'w', 0o600);
    this.size = 0;
  }
}
