import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { STARTER_TEXTS, WORKSPACE_DIRS } from './starter-texts.js';

/** The runtime's own folders: the event log, its state and the jobs database are the owner's alone. */
const PRIVATE_DIRS: ReadonlySet<string> = new Set(['sessions', 'state', 'cron']);

/**
 * Creates the workspace layout with starter texts. Never overwrites: an existing entry is left as it is.
 * Returns what it created, as paths relative to the workspace (directories end in `/`). The workspace is made
 * owner-only (0700), so nothing a command leaves in it is in other users' reach.
 */
export function ensureWorkspace(root: string): string[] {
  const created: string[] = [];
  if (!existsSync(root)) mkdirSync(root, { recursive: true, mode: 0o700 });
  for (const dir of WORKSPACE_DIRS) {
    if (existsSync(join(root, dir))) continue;
    mkdirSync(join(root, dir), { recursive: true, ...(PRIVATE_DIRS.has(dir) ? { mode: 0o700 } : {}) });
    created.push(`${dir}/`);
  }
  for (const [name, text] of Object.entries(STARTER_TEXTS)) {
    const path = join(root, name);
    mkdirSync(dirname(path), { recursive: true });
    try {
      writeFileSync(path, text, { flag: 'wx' });
      created.push(name);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  return created;
}
