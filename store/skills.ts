import { existsSync, readdirSync, readFileSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { statOf } from './stat.js';
import { DirectoryWatches, type WatchedDirectory, type WatchOptions } from './watched-directory.js';

export type SkillRoot = 'workspace' | 'global' | 'builtin';

export interface SkillInfo {
  name: string;
  description: string;
  root: SkillRoot;
  /** The skill's SKILL.md. */
  path: string;
}

const skillFrontmatterSchema = z.looseObject({ name: z.string().min(1).optional(), description: z.string().default('') });
const FENCE = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?/;

/** The package's own `skills/` folder, from the sources or from `dist/`. */
export function packagedSkillsRoot(): string {
  const candidates = ['../skills', '../../skills'].map((p) => fileURLToPath(new URL(p, import.meta.url)));
  return candidates.find((dir) => existsSync(dir)) ?? candidates[0]!;
}

function parseSkill(path: string, folder: string, root: SkillRoot): SkillInfo | undefined {
  const text = readFileSync(path, 'utf8');
  const fence = FENCE.exec(text);
  let raw: unknown = {};
  try {
    raw = fence ? parseYaml(fence[1]!) ?? {} : {};
  } catch {
    return undefined;
  }
  const parsed = skillFrontmatterSchema.safeParse(raw);
  if (!parsed.success) return undefined;
  return { name: parsed.data.name ?? folder, description: parsed.data.description, root, path };
}

/** The instructions of a skill: its SKILL.md without the frontmatter. */
export function skillBody(skill: SkillInfo): string {
  return readFileSync(skill.path, 'utf8').replace(FENCE, '').trim();
}

export function skillRoots(workspace: string, home: string, env: NodeJS.ProcessEnv): Array<{ root: SkillRoot; dir: string }> {
  return [
    { root: 'workspace', dir: join(workspace, 'skills') },
    { root: 'global', dir: join(home, 'skills') },
    { root: 'builtin', dir: env.AGENT_BUILTIN_SKILLS?.trim() || packagedSkillsRoot() },
  ];
}

/** When a look last found a path unchanged: its directory's watch version and the path's modification time. */
interface Stamp {
  dir: WatchedDirectory;
  version: number | undefined;
  path: string;
  mtimeMs: number;
}

function stamp(dir: WatchedDirectory, path: string): { stamp: Stamp; stats: Stats | undefined } {
  const version = dir.version();
  const stats = statOf(path);
  return { stamp: { dir, version, path, mtimeMs: stats?.mtimeMs ?? -1 }, stats };
}

/** Whether a stamped path is as it was: a watched directory that signalled nothing needs no `stat`. */
function unchanged(stamp: Stamp): boolean {
  const version = stamp.dir.version();
  if (version !== undefined && version === stamp.version) return true;
  if ((statOf(stamp.path)?.mtimeMs ?? -1) !== stamp.mtimeMs) return false;
  stamp.version = version;
  return true;
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
  private cached: { skills: SkillInfo[]; stamps: Stamp[] } | undefined;

  constructor(
    private readonly roots: Array<{ root: SkillRoot; dir: string }>,
    options: WatchOptions = {},
  ) {
    this.watches = new DirectoryWatches(options);
  }

  list(): SkillInfo[] {
    if (this.cached?.stamps.every(unchanged)) return this.cached.skills;
    this.cached = this.scan();
    this.watches.keepOnly(new Set(this.cached.stamps.map((s) => s.dir)));
    return this.cached.skills;
  }

  close(): void {
    this.watches.close();
  }

  /** Every path is stamped before it is read, so a change made during the scan is seen at the next look. */
  private scan(): { skills: SkillInfo[]; stamps: Stamp[] } {
    const found = new Map<string, SkillInfo>();
    const stamps: Stamp[] = [];
    for (const { root, dir } of this.roots) {
      const rootLook = stamp(this.watches.dir(dir), dir);
      stamps.push(rootLook.stamp);
      if (!rootLook.stats?.isDirectory()) continue;
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        if (!entry.isDirectory()) continue;
        const folder = join(dir, entry.name);
        const path = join(folder, 'SKILL.md');
        const look = stamp(this.watches.dir(folder), path);
        stamps.push(look.stamp);
        if (!look.stats) continue;
        const skill = parseSkill(path, entry.name, root);
        if (skill && !found.has(skill.name)) found.set(skill.name, skill);
      }
    }
    return { skills: [...found.values()].sort((a, b) => a.name.localeCompare(b.name)), stamps };
  }
}
