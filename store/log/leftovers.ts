import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Removes what a compaction cut short (a kill, a crash) leaves in the log folder `dir`: its copy of the log
 * (`.compact-*`, as large as the log) and the archive it was writing (`archive/.writing-*`). Their events are still in
 * the log, which a compaction replaces only once the copy is whole. Called by whoever holds the writer lock, so no
 * compaction is under way.
 */
export function removeCompactionLeftovers(dir: string): void {
  if (!existsSync(dir)) return;
  for (const name of readdirSync(dir)) {
    if (name.startsWith('.compact-')) rmSync(join(dir, name), { recursive: true, force: true });
  }
  const archive = join(dir, 'archive');
  if (!existsSync(archive)) return;
  for (const name of readdirSync(archive)) {
    if (name.startsWith('.writing-')) rmSync(join(archive, name), { force: true });
  }
}
