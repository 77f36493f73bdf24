import type { Dirent } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import * as z from 'zod';
import type { Sandbox } from '../sandbox/sandbox.js';
import { resolveReal } from '../sandbox/resolve-real.js';
import { ok, type Tool } from '../tool.js';
import { withPath } from './fs-error.js';
import { holdFolder } from './open-checked.js';

const parameters = z.object({
  path: z
    .string()
    .optional()
    .describe('Folder to list, relative to the workspace or absolute (default: the workspace)'),
});

/** A protected entry is hidden, also when it is a link whose target is protected. */
export function isHiddenEntry(sandbox: Sandbox, dir: string, entry: Dirent): boolean {
  const path = join(dir, entry.name);
  if (sandbox.isHidden(path)) return true;
  if (!entry.isSymbolicLink()) return false;
  try {
    return sandbox.isHidden(resolveReal(path));
  } catch {
    return true;
  }
}

export function listDirTool(sandbox: Sandbox): Tool<z.infer<typeof parameters>> {
  return {
    name: 'list_dir',
    description: 'List the entries of a folder; folders end with "/".',
    parameters,
    execute: ({ path = '.' }) =>
      withPath(path, async () => {
        const dir = holdFolder(sandbox, path);
        let entries: Dirent[];
        try {
          entries = await readdir(dir.self, { withFileTypes: true });
        } finally {
          dir.close();
        }
        const shown = entries
          .filter((entry) => !isHiddenEntry(sandbox, dir.path, entry))
          .map((entry) => (entry.isDirectory() ? `${entry.name}/` : entry.name))
          .sort();
        return ok(shown.length > 0 ? shown.join('\n') : '(empty folder)');
      }),
  };
}
