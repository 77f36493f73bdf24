import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  copyFileSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { dirname } from 'node:path';
import { ConfigError } from './errors.js';
import { jsonSyntaxProblem } from './json-error.js';
import { isRecord, type RawObject } from './raw.js';

const PRIVATE = 0o600;

/** Readers see the old file or the new one, never half of either: write a temp file, fsync, rename. */
export function writeFileAtomic(path: string, content: string): void {
  mkdirSync(dirname(path), { recursive: true });
  const temp = `${path}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  const fd = openSync(temp, 'w', PRIVATE);
  try {
    writeSync(fd, content);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    chmodSync(temp, PRIVATE);
    renameSync(temp, path);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}

/** `20261122-031500`: sorts by time and is safe in file names everywhere. */
export function stamp(date: Date): string {
  return date
    .toISOString()
    .replace(/\.\d+Z$/, '')
    .replace(/[-:]/g, '')
    .replace('T', '-');
}

/** Copies `path` to `path.bak-<stamp>` (owner-only, since it may hold secrets); returns the copy's path. */
export function backupFile(path: string, date: Date): string | undefined {
  if (!existsSync(path)) return undefined;
  let backup = `${path}.bak-${stamp(date)}`;
  for (let n = 2; existsSync(backup); n++) backup = `${path}.bak-${stamp(date)}-${n}`;
  copyFileSync(path, backup);
  chmodSync(backup, PRIVATE);
  return backup;
}

/** A config or credentials file as text; a read failure (a directory, no permission) names the file. */
export function readText(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new ConfigError('config_unreadable', path, [`(file): cannot be read (${reason})`]);
  }
}

/**
 * A config file's JSON object as written: a syntax error gives its place and line, and anything but an object is
 * refused (both as ConfigError, naming the file).
 */
export function readConfigObject(path: string): RawObject {
  const text = readText(path);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    const { problem, excerpt } = jsonSyntaxProblem(text, error as Error);
    throw new ConfigError('config_unreadable', path, [problem], excerpt);
  }
  if (!isRecord(parsed))
    throw new ConfigError('config_invalid', path, ['(config): is not an object (allowed: a JSON object of blocks)']);
  return parsed;
}
