import { closeSync, constants, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { HeldDirectory } from '../../../store/files/held-directory.js';
import { openRegular, type OpenedFile } from '../../../store/files/regular-file.js';
import type { Sandbox } from '../sandbox/sandbox.js';
import { isHiddenEntry } from './list-dir.js';
import { openChecked } from './open-checked.js';

const SKIPPED_DIRS = new Set(['.git']);

/** A file the walk found: its real path, and how to open it as checked (call before the walk goes on). */
export interface FoundFile {
  path: string;
  open(): OpenedFile;
}

/**
 * Every file under the held folder `dir` the sandbox lets the model read, in a stable (sorted) order. Folders are
 * entered by handle, never through a link, so a folder swapped for a link while the walk runs leads nowhere; linked
 * folders are not entered at all, so link loops cannot trap the walk; linked files count only when their target passes
 * the sandbox. Synchronous because it is several times faster per file here; the caller yields to the event loop
 * between batches.
 */
export function* walkFiles(sandbox: Sandbox, dir: HeldDirectory): Generator<FoundFile> {
  const entries = readdirSync(dir.self, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1));
  for (const entry of entries) {
    if (isHiddenEntry(sandbox, dir.path, entry)) continue;
    const path = join(dir.path, entry.name);
    if (entry.isDirectory()) {
      if (!SKIPPED_DIRS.has(entry.name)) yield* walkFolder(sandbox, dir, entry.name);
    } else if (entry.isFile()) {
      yield { path, open: () => openRegular(dir, entry.name, constants.O_RDONLY) };
    } else if (entry.isSymbolicLink() && readableLink(sandbox, path)) {
      yield { path, open: () => openChecked(sandbox, path, 'read') };
    }
  }
}

function* walkFolder(sandbox: Sandbox, parent: HeldDirectory, name: string): Generator<FoundFile> {
  let child: HeldDirectory;
  try {
    child = parent.child(name);
  } catch {
    // Gone, or swapped for a link since it was listed.
    return;
  }
  try {
    yield* walkFiles(sandbox, child);
  } finally {
    child.close();
  }
}

function readableLink(sandbox: Sandbox, path: string): boolean {
  try {
    closeSync(openChecked(sandbox, path, 'read').fd);
    return true;
  } catch {
    return false;
  }
}
