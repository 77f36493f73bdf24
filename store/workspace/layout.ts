import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { STARTER_TEXTS, WORKSPACE_DIRS } from './starter-texts.js';

/**
 * Creates the workspace layout with starter texts. Never overwrites: an existing entry is left as it is.
 * Returns what it created, as paths relative to the workspace (directories end in `/`).
 */
export function ensureWorkspace(root: string): string[] {
  const created: string[] = [];
  if (!existsSync(root)) mkdirSync(root, { recursive: true });
  for (const dir of WORKSPACE_DIRS) {
    if (existsSync(join(root, dir))) continue;
    mkdirSync(join(root, dir), { recursive: true });
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
