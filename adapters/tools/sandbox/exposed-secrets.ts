import { lstatSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { ExposePath } from './bwrap-plan.js';
import { isWithin } from './resolve-real.js';

/** What an isolated command must not see although it lies in a folder it is shown. */
export interface Masks {
  files: string[];
  dirs: string[];
}

/** The runtime's own files in `AGENT_HOME`, hidden when `AGENT_HOME` itself is shown (as the workspace, say). */
const RUNTIME_FILES =
  /^(config\.json.*|launcher-auth\.db|launcher-config\.json.*|auth|auth\.json|logs|\.security\.yml.*)$/i;

/** Credential files outside every shown folder whose other hard links inside one must be hidden too. */
const USER_CREDENTIAL_FILES = ['.netrc', '.npmrc', '.pypirc', '.pgpass', '.git-credentials', '.env'];
const USER_CREDENTIAL_DIRS = ['.ssh', '.aws', '.kube', '.docker', '.azure', '.gnupg', '.config/gh', '.config/gcloud'];
const HOME_CREDENTIAL_DIRS = ['auth/mcp', 'launcher-auth.db'];

type Entry = {
  name: string;
  kind: 'dir' | 'file' | 'other' /** `dev:ino` of a regular file with more than one link. */;
  linked?: string;
};

export interface SecretScannerOptions {
  /** The sandbox's protected-path test (read access). */
  isProtected(path: string): boolean;
  /** `AGENT_HOME`, real. */
  home: string;
  userHome: string;
  /** The coding tool's home, whose `auth.json` is a credential. */
  codingToolHome: string;
}

function linkKey(path: string): string | undefined {
  const stats = lstatSync(path, { bigint: true, throwIfNoEntry: false });
  return stats?.isFile() && stats.nlink > 1n ? `${stats.dev}:${stats.ino}` : undefined;
}

function filesIn(dir: string): string[] {
  try {
    return readdirSync(dir).map((name) => join(dir, name));
  } catch {
    return [];
  }
}

/**
 * Finds the protected entries (the spec's credential names, the runtime's own files) inside the folders an
 * isolated command is shown, and every other hard link to a protected file there. A folder is read again only
 * when it changed (its mtime), so a command in a large, quiet workspace costs one `stat` per folder.
 */
export class SecretScanner {
  private readonly folders = new Map<string, { stamp: string; entries: Entry[] }>();

  constructor(private readonly options: SecretScannerOptions) {}

  masks(trees: string[], expose: readonly ExposePath[]): Masks {
    const files: string[] = [];
    const dirs: string[] = [];
    const protectedLinks = new Set<string>();
    const linked = new Map<string, string[]>();
    const seen = new Set<string>();
    const stack: Array<{ dir: string; hidden: boolean }> = trees.map((dir) => ({ dir, hidden: false }));
    while (stack.length > 0) {
      const { dir, hidden } = stack.pop()!;
      if (seen.has(dir)) continue;
      seen.add(dir);
      for (const entry of this.entriesOf(dir) ?? []) {
        const path = join(dir, entry.name);
        const secret =
          hidden || this.options.isProtected(path) || (dir === this.options.home && RUNTIME_FILES.test(entry.name));
        if (secret && !hidden && entry.kind === 'dir') dirs.push(path);
        if (secret && !hidden && entry.kind === 'file') files.push(path);
        if (entry.kind === 'dir') stack.push({ dir: path, hidden: secret });
        if (entry.linked && secret) protectedLinks.add(entry.linked);
        if (entry.linked && !secret) linked.set(entry.linked, [...(linked.get(entry.linked) ?? []), path]);
      }
    }
    if (linked.size > 0) {
      for (const file of this.credentialsOutside()) {
        const key = linkKey(file);
        if (key) protectedLinks.add(key);
      }
      for (const [key, paths] of linked) if (protectedLinks.has(key)) files.push(...paths);
    }
    return { files: [...files, ...exposed(files, expose)], dirs: [...dirs, ...exposed(dirs, expose)] };
  }

  private entriesOf(dir: string): Entry[] | undefined {
    let stamp: string;
    try {
      const stats = statSync(dir, { bigint: true });
      stamp = `${stats.ino}:${stats.mtimeNs}`;
    } catch {
      return undefined;
    }
    const cached = this.folders.get(dir);
    if (cached?.stamp === stamp) return cached.entries;
    let entries: Entry[];
    try {
      entries = readdirSync(dir, { withFileTypes: true }).map((dirent): Entry => {
        if (dirent.isDirectory()) return { name: dirent.name, kind: 'dir' };
        if (!dirent.isFile()) return { name: dirent.name, kind: 'other' };
        const key = linkKey(join(dir, dirent.name));
        return key ? { name: dirent.name, kind: 'file', linked: key } : { name: dirent.name, kind: 'file' };
      });
    } catch {
      return undefined;
    }
    this.folders.set(dir, { stamp, entries });
    return entries;
  }

  /** The credential files a shown hard link could be another name of. */
  private credentialsOutside(): string[] {
    const { home, userHome, codingToolHome } = this.options;
    return [
      ...filesIn(home).filter((path) => RUNTIME_FILES.test(relative(home, path))),
      ...HOME_CREDENTIAL_DIRS.flatMap((dir) => filesIn(join(home, dir))),
      ...USER_CREDENTIAL_FILES.map((name) => join(userHome, name)),
      ...USER_CREDENTIAL_DIRS.flatMap((dir) => filesIn(join(userHome, dir))),
      join(codingToolHome, 'auth.json'),
    ];
  }
}

/** Masks under an exposed folder also apply where it is shown, when that is elsewhere. */
function exposed(paths: string[], expose: readonly ExposePath[]): string[] {
  return expose
    .filter((path) => path.target !== path.source)
    .flatMap((path) =>
      paths.filter((p) => isWithin(p, path.source)).map((p) => join(path.target, relative(path.source, p))),
    );
}
