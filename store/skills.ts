import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { byCodePoint } from './code-point-order.js';
import { bodyOf, lenientHeader } from './skills/skill-file.js';
import { DirectoryWatches, lookAt, unchanged, type PathLook, type WatchOptions } from './watched-directory.js';
import { readUserText } from './files/regular-file.js';

export type SkillRoot = 'workspace' | 'global' | 'builtin';

export interface SkillInfo {
  name: string;
  description: string;
  root: SkillRoot;
  /** The skill's SKILL.md. */
  path: string;
}

/** The package's own `skills/` folder, from the sources or from `dist/`. */
export function packagedSkillsRoot(): string {
  const candidates = ['../skills', '../../skills'].map((p) => fileURLToPath(new URL(p, import.meta.url)));
  return candidates.find((dir) => existsSync(dir)) ?? candidates[0]!;
}

function parseSkill(path: string, folder: string, root: SkillRoot): SkillInfo | undefined {
  // A workspace skill folder is writable by sandboxed commands: a FIFO there must not hang the process.
  const header = lenientHeader(readUserText(path) ?? '', folder);
  return header && { ...header, root, path };
}

/** The instructions of a skill: its SKILL.md without the frontmatter. */
export function skillBody(skill: SkillInfo): string {
  return bodyOf(readUserText(skill.path) ?? '');
}

/** Folders a skill root holds that are not skills: a dot-folder is an install in progress or a backup. */
export function isSkillFolder(entry: { name: string; isDirectory(): boolean }): boolean {
  return entry.isDirectory() && !entry.name.startsWith('.');
}

export function skillRoots(
  workspace: string,
  home: string,
  env: NodeJS.ProcessEnv,
): Array<{ root: SkillRoot; dir: string }> {
  return [
    { root: 'workspace', dir: join(workspace, 'skills') },
    { root: 'global', dir: join(home, 'skills') },
    { root: 'builtin', dir: env.AGENT_BUILTIN_SKILLS?.trim() || packagedSkillsRoot() },
  ];
}

/**
 * The skills of the workspace `skills/`, then `<AGENT_HOME>/skills`, then the built-in root: one folder with a
 * `SKILL.md` per skill; the first root that has a name wins. Sorted by name so prompts stay byte-stable. The roots
 * are read again only when a root folder or a skill folder's `SKILL.md` changed, so every turn sees a newly
 * installed, edited or removed skill, and an unchanged catalog costs no `stat` while its folders are watched
 * (`fs.watch`) and one per root and skill folder where they cannot be. `close()` ends the watches.
 */
export class SkillCatalog {
  private readonly watches: DirectoryWatches;
  private cached: { skills: SkillInfo[]; looks: PathLook[] } | undefined;

  constructor(
    private readonly roots: Array<{ root: SkillRoot; dir: string }>,
    options: WatchOptions = {},
  ) {
    this.watches = new DirectoryWatches(options);
  }

  list(): SkillInfo[] {
    if (this.cached?.looks.every(unchanged)) return this.cached.skills;
    this.cached = this.scan();
    this.watches.keepOnly(new Set(this.cached.looks.map((look) => look.dir)));
    return this.cached.skills;
  }

  close(): void {
    this.watches.close();
  }

  /** Every path is looked at before it is read, so a change made during the scan is seen at the next look. */
  private scan(): { skills: SkillInfo[]; looks: PathLook[] } {
    const found = new Map<string, SkillInfo>();
    const looks: PathLook[] = [];
    for (const { root, dir } of this.roots) {
      const rootLook = lookAt(this.watches.dir(dir), dir);
      looks.push(rootLook.look);
      if (!rootLook.stats?.isDirectory()) continue;
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        if (!isSkillFolder(entry)) continue;
        const folder = join(dir, entry.name);
        const path = join(folder, 'SKILL.md');
        const skillLook = lookAt(this.watches.dir(folder), path);
        looks.push(skillLook.look);
        if (!skillLook.stats) continue;
        const skill = parseSkill(path, entry.name, root);
        if (skill && !found.has(skill.name)) found.set(skill.name, skill);
      }
    }
    return { skills: [...found.values()].sort((a, b) => byCodePoint(a.name, b.name)), looks };
  }
}
