import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { statOf } from './stat.js';

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

/**
 * Skills from the workspace `skills/`, then `<AGENT_HOME>/skills`, then the built-in root: one folder with a
 * `SKILL.md` per skill; the first root that has a name wins. Sorted by name so prompts stay byte-stable.
 */
export function loadSkills(roots: Array<{ root: SkillRoot; dir: string }>): SkillInfo[] {
  const found = new Map<string, SkillInfo>();
  for (const { root, dir } of roots) {
    if (!existsSync(dir)) continue;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name, 'SKILL.md');
      if (!entry.isDirectory() || !existsSync(path)) continue;
      const skill = parseSkill(path, entry.name, root);
      if (skill && !found.has(skill.name)) found.set(skill.name, skill);
    }
  }
  return [...found.values()].sort((a, b) => a.name.localeCompare(b.name));
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

const mtimeOf = (path: string): number => statOf(path)?.mtimeMs ?? -1;

/**
 * The skills of a set of roots, read again only when a root folder or a SKILL.md changes (a few `stat`s per
 * look), so every turn sees a newly installed or edited skill without reading every file every time.
 */
export class SkillCatalog {
  /** The skills read, with the modification time of each root folder and SKILL.md when they were read. */
  private cached: { skills: SkillInfo[]; stamps: Array<[path: string, mtime: number]> } | undefined;

  constructor(private readonly roots: Array<{ root: SkillRoot; dir: string }>) {}

  list(): SkillInfo[] {
    if (this.cached?.stamps.every(([path, mtime]) => mtimeOf(path) === mtime)) return this.cached.skills;
    const skills = loadSkills(this.roots);
    const paths = [...this.roots.map((r) => r.dir), ...skills.map((s) => s.path)];
    this.cached = { skills, stamps: paths.map((path) => [path, mtimeOf(path)]) };
    return skills;
  }
}
