import { constants } from 'node:fs';
import { basename, dirname, sep } from 'node:path';
import { HeldDirectory } from '../../../store/files/held-directory.js';
import { openRegular, type OpenedFile } from '../../../store/files/regular-file.js';
import { isWithin } from '../sandbox/resolve-real.js';
import type { Access, Sandbox } from '../sandbox/sandbox.js';

const { O_APPEND, O_CREAT, O_EXCL, O_RDONLY, O_RDWR, O_WRONLY } = constants;

/** What a file tool does with the file it names. */
export type Intent = 'read' | 'edit' | 'create' | 'replace' | 'append';

const HOW: Record<Intent, { access: Access; flags: number; makesFolders: boolean }> = {
  read: { access: 'read', flags: O_RDONLY, makesFolders: false },
  edit: { access: 'write', flags: O_RDWR, makesFolders: false },
  create: { access: 'write_file', flags: O_WRONLY | O_CREAT | O_EXCL, makesFolders: true },
  replace: { access: 'write_file', flags: O_WRONLY | O_CREAT, makesFolders: true },
  append: { access: 'write', flags: O_WRONLY | O_APPEND | O_CREAT, makesFolders: true },
};

/**
 * Checks `input` against the sandbox and opens exactly what was checked, with no window between the two: the folder
 * of the checked real path is reached from `/` by handle with no link followed (missing folders made on the way when
 * writing), and the file is opened in it with no link followed, only as a regular file with one link. A link that
 * appears on the way (a racer swapping a folder for one) is refused, so nothing outside the checked path is read or
 * written. `replace` does not truncate (that would happen before the checks): the caller truncates the descriptor.
 */
export function openChecked(sandbox: Sandbox, input: string, intent: Intent): OpenedFile {
  const how = HOW[intent];
  const real = sandbox.resolve(input, how.access);
  const create = how.makesFolders ? { mode: 0o777 } : undefined;
  const parent = HeldDirectory.open(dirname(real), create, rootOf(sandbox, real));
  try {
    return openRegular(parent, basename(real), how.flags);
  } finally {
    parent.close();
  }
}

/** The folder `input` names, checked and held by handle; the caller lists it through the handle and closes it. */
export function holdFolder(sandbox: Sandbox, input: string): HeldDirectory {
  const real = sandbox.resolve(input, 'read');
  return HeldDirectory.open(real, undefined, rootOf(sandbox, real));
}

/**
 * Where the walk to `real` starts: the outermost allowed folder holding it (the workspace, an allow path), whose own
 * path a sandboxed command cannot change (it sees nothing above it), else `/`. Fewer folders to walk by handle.
 */
function rootOf(sandbox: Sandbox, real: string): string {
  const holding = [sandbox.workspace, ...sandbox.readRoots].filter((root) => isWithin(real, root));
  return holding.sort((a, b) => a.length - b.length)[0] ?? sep;
}
