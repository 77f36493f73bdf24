import { createHash } from 'node:crypto';
import { lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** Folders a plugin's own files never live in; its dependencies change with its package.json or lock file. */
const SKIPPED = new Set(['node_modules', '.git']);
/** A folder with more entries than this is fingerprinted by the first ones (sorted): a plugin is a few files. */
const MAX_ENTRIES = 5_000;

function files(dir: string, prefix: string, out: string[]): void {
  let names: string[];
  try {
    names = readdirSync(join(dir, prefix)).sort();
  } catch {
    return;
  }
  for (const name of names) {
    if (out.length >= MAX_ENTRIES) return;
    const relative = prefix === '' ? name : `${prefix}/${name}`;
    const stats = lstatSync(join(dir, relative), { bigint: true, throwIfNoEntry: false });
    if (!stats) continue;
    if (stats.isDirectory()) {
      if (!SKIPPED.has(name)) files(dir, relative, out);
    } else {
      out.push(`${relative}\0${stats.size}\0${stats.mtimeNs}`);
    }
  }
}

/**
 * What a plugin's load depends on, in one hash: every file in its folder (path, size, modification time), its
 * config entry, and the Node version. A change to any of them means a failure seen before may not happen again.
 */
export function pluginFingerprint(dir: string, entry: unknown): string {
  const listed: string[] = [];
  files(dir, '', listed);
  const text = `${process.version}\n${JSON.stringify(entry)}\n${listed.join('\n')}`;
  return createHash('sha256').update(text).digest('hex');
}
