import { existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { isSkillFolder, type SkillRoot } from '../skills.js';
import { readOrigin, type SkillOrigin } from './origin.js';
import { lenientHeader } from './skill-file.js';

export interface InstalledSkill {
  name: string;
  description: string;
  root: SkillRoot;
  /** The folder under its root; `remove` takes it or the name. */
  folder: string;
  /** The skill's folder. */
  dir: string;
  /** The registry it came from; absent for a skill written by hand or built in. */
  origin?: SkillOrigin;
  /** A skill of the same name in an earlier root wins over this one. */
  shadowed: boolean;
}

/** Every skill of every root, in the roots' order (workspace, global, built-in), folders sorted by name. */
export function installedSkills(roots: ReadonlyArray<{ root: SkillRoot; dir: string }>): InstalledSkill[] {
  const seen = new Set<string>();
  const out: InstalledSkill[] = [];
  for (const { root, dir } of roots) {
    if (!existsSync(dir)) continue;
    const folders = readdirSync(dir, { withFileTypes: true })
      .filter(isSkillFolder)
      .map((e) => e.name)
      .sort();
    for (const folder of folders) {
      const skillDir = join(dir, folder);
      let text: string;
      try {
        text = readFileSync(join(skillDir, 'SKILL.md'), 'utf8');
      } catch {
        continue;
      }
      const header = lenientHeader(text, folder);
      if (!header) continue;
      const origin = readOrigin(skillDir);
      out.push({
        ...header,
        root,
        folder,
        dir: skillDir,
        ...(origin ? { origin } : {}),
        shadowed: seen.has(header.name),
      });
      seen.add(header.name);
    }
  }
  return out;
}

/** A skill as JSON answers show it: its folder as `path`. */
export function installedRow(skill: InstalledSkill): Omit<InstalledSkill, 'dir'> & { path: string } {
  const { dir, ...rest } = skill;
  return { ...rest, path: dir };
}

/** The skill a user means by `name`: its folder or its name, in the first root that has it. */
export function findInstalled(skills: readonly InstalledSkill[], name: string): InstalledSkill | undefined {
  return (
    skills.find((s) => s.folder === name && !s.shadowed) ??
    skills.find((s) => s.name === name && !s.shadowed) ??
    skills.find((s) => s.folder === name || s.name === name)
  );
}

/** Removes a skill's folder: renamed aside first, so it disappears from the catalog at once and whole. */
export function removeSkillFolder(skill: InstalledSkill, rootDir: string): void {
  const trash = mkdtempSync(join(rootDir, '.removing-'));
  try {
    renameSync(skill.dir, join(trash, skill.folder));
  } finally {
    rmSync(trash, { recursive: true, force: true });
  }
}
