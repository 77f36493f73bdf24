import * as z from 'zod';
import { parseFrontmatter } from '../frontmatter-yaml.js';

const FENCE = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?/;

/** A SKILL.md's frontmatter as the catalog reads it: `name` falls back to the folder, `description` to empty. */
const lenientSchema = z.looseObject({ name: z.string().min(1).optional(), description: z.string().default('') });

/** What an installed or drafted skill must have: both keys, as text. */
const strictSchema = z.looseObject({
  name: z
    .string({ error: 'is missing (allowed: the skill name as text)' })
    .trim()
    .min(1, { error: 'is empty (allowed: the skill name as text)' }),
  description: z
    .string({ error: 'is missing (allowed: one line saying what the skill is for)' })
    .trim()
    .min(1, { error: 'is empty (allowed: one line saying what the skill is for)' }),
});

export interface SkillHeader {
  name: string;
  description: string;
}

export class SkillFileError extends Error {
  readonly code = 'skill_file_invalid';
  constructor(message: string) {
    super(message);
    this.name = 'SkillFileError';
  }
}

type Frontmatter = { kind: 'none' } | { kind: 'yaml'; data: unknown } | { kind: 'broken' };

function frontmatterOf(text: string): Frontmatter {
  const fence = FENCE.exec(text);
  if (!fence) return { kind: 'none' };
  try {
    return { kind: 'yaml', data: parseFrontmatter(fence[1]!) ?? {} };
  } catch {
    return { kind: 'broken' };
  }
}

/** The header the catalog shows; undefined when the frontmatter is not YAML or not a mapping. */
export function lenientHeader(text: string, folder: string): SkillHeader | undefined {
  const frontmatter = frontmatterOf(text);
  if (frontmatter.kind === 'broken') return undefined;
  const parsed = lenientSchema.safeParse(frontmatter.kind === 'yaml' ? frontmatter.data : {});
  return parsed.success ? { name: parsed.data.name ?? folder, description: parsed.data.description } : undefined;
}

/** A SKILL.md that states its `name` and `description`, or a `SkillFileError` naming what is wrong. */
export function strictHeader(text: string): SkillHeader {
  const frontmatter = frontmatterOf(text);
  if (frontmatter.kind === 'none')
    throw new SkillFileError('SKILL.md has no frontmatter (allowed: a --- block with name and description first)');
  if (frontmatter.kind === 'broken') throw new SkillFileError('the frontmatter of SKILL.md is not valid YAML');
  const parsed = strictSchema.safeParse(frontmatter.data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const key = issue.path.length > 0 ? issue.path.join('.') : '(frontmatter)';
    throw new SkillFileError(
      `SKILL.md frontmatter ${key} ` +
        `${issue.path.length > 0 ? issue.message : 'is not a mapping (allowed: name and description)'}`,
    );
  }
  return { name: parsed.data.name, description: parsed.data.description };
}

/** The instructions of a skill: its SKILL.md without the frontmatter. */
export function bodyOf(text: string): string {
  return text.replace(FENCE, '').trim();
}
