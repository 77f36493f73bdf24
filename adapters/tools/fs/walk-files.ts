import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Sandbox } from '../sandbox/sandbox.js';
import { isHiddenEntry } from './list-dir.js';

const SKIPPED_DIRS = new Set(['.git']);

/**
 * Every file under `root` the sandbox lets the model read, in a stable (sorted) order. Linked
 * folders are not entered, so link loops cannot trap the walk; linked files count only when their
 * target passes the sandbox. Synchronous because it is several times faster per file here; the
 * caller yields to the event loop between batches.
 */
export function* walkFiles(sandbox: Sandbox, root: string): Generator<string> {
  const entries = readdirSync(root, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1));
  for (const entry of entries) {
    if (isHiddenEntry(sandbox, root, entry)) continue;
    const path = join(root, entry.name);
    if (entry.isDirectory()) {
      if (!SKIPPED_DIRS.has(entry.name)) yield* walkFiles(sandbox, path);
    } else if (entry.isFile()) {
      yield path;
    } else if (entry.isSymbolicLink() && readableLink(sandbox, path)) {
      yield path;
    }
  }
}

function readableLink(sandbox: Sandbox, path: string): boolean {
  try {
    return statSync(sandbox.resolve(path, 'read')).isFile();
  } catch {
    return false;
  }
}
