import { lstatSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';

const inboundDir = (workspace: string): string => join(workspace, 'media', 'inbound');

/**
 * Saves a file a user sent through a channel (a voice message) under `<workspace>/media/inbound/` and
 * returns its path. The name is reduced to its last segment and safe characters, so a platform-chosen
 * name can never point outside that folder.
 */
export function saveInboundMedia(workspace: string, messageId: string, name: string, data: Buffer): string {
  const dir = inboundDir(workspace);
  mkdirSync(dir, { recursive: true });
  const safe = `${messageId}-${basename(name)}`.replace(/[^A-Za-z0-9._-]/g, '_');
  const path = join(dir, safe);
  writeFileSync(path, data, { mode: 0o600 });
  return path;
}

/** What one sweep of the inbound media folder did: the files removed, and those that could not be. */
export interface MediaSweep {
  removed: string[];
  failed: Array<{ path: string; reason: string }>;
}

/**
 * Removes the files in `<workspace>/media/inbound/` last modified before `olderThan` (ms since the epoch). Only
 * regular files directly in it, which is all `saveInboundMedia` writes: a folder or link someone put there stays.
 */
export function removeInboundMedia(workspace: string, olderThan: number): MediaSweep {
  const dir = inboundDir(workspace);
  const sweep: MediaSweep = { removed: [], failed: [] };
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return sweep;
  }
  for (const name of names) {
    const path = join(dir, name);
    try {
      const stats = lstatSync(path, { throwIfNoEntry: false });
      if (!stats?.isFile() || stats.mtimeMs >= olderThan) continue;
      rmSync(path);
      sweep.removed.push(path);
    } catch (error) {
      sweep.failed.push({ path, reason: (error as NodeJS.ErrnoException).code ?? (error as Error).message });
    }
  }
  return sweep;
}
