import { lstatSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** One V8 code cache file: read at start, written at most once per run. */
export interface CodeCache {
  read(): Buffer | undefined;
  /** Never throws: a cache that cannot be written only costs the next start its compile time. */
  write(data: Buffer): void;
}

/**
 * `<bundle dir>/.cache/<name>` first, so a build or a user-owned install keeps its cache beside its code and loses
 * it with it; then a directory of this user's own under the temp dir, for installs the user cannot write to
 * (`npm i -g` as root). Cached data is code: the temp one is used only while it is a private directory this user owns.
 */
export function codeCache(bundleDir: string, name: string): CodeCache {
  const beside = join(bundleDir, '.cache');
  const userOwn = join(tmpdir(), `tern-code-cache-${process.getuid?.() ?? 'user'}`);
  return {
    read: () => readFrom(beside, name) ?? (isPrivate(userOwn) ? readFrom(userOwn, name) : undefined),
    write: (data) => {
      if (writeInto(beside, name, data)) return;
      mkdirQuietly(userOwn);
      if (isPrivate(userOwn)) writeInto(userOwn, name, data);
    },
  };
}

function readFrom(dir: string, name: string): Buffer | undefined {
  try {
    return readFileSync(join(dir, name));
  } catch {
    return undefined;
  }
}

/** Temp file and rename: a start that reads while another process writes sees the old file or the new one. */
function writeInto(dir: string, name: string, data: Buffer): boolean {
  const temp = join(dir, `${name}.${process.pid}.tmp`);
  try {
    mkdirSync(dir, { recursive: true });
    writeFileSync(temp, data);
    renameSync(temp, join(dir, name));
    return true;
  } catch {
    removeQuietly(temp);
    return false;
  }
}

function removeQuietly(file: string): void {
  try {
    rmSync(file, { force: true });
  } catch {
    // Nothing was written there.
  }
}

function mkdirQuietly(dir: string): void {
  try {
    mkdirSync(dir, { mode: 0o700 });
  } catch {
    // Already there (checked next) or not creatable (then unused).
  }
}

/** Another user could have created the directory first and planted a cache in it. */
function isPrivate(dir: string): boolean {
  try {
    const stat = lstatSync(dir);
    const uid = process.getuid?.();
    return stat.isDirectory() && (uid === undefined || stat.uid === uid) && (stat.mode & 0o077) === 0;
  } catch {
    return false;
  }
}
