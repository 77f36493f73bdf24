import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as z from 'zod';

/** Written into an installed skill's folder; the peer runtime's name and fields, plus the archive's hash. */
export const ORIGIN_FILE = '.skill-origin.json';

export const skillOriginSchema = z.object({
  version: z.literal(1),
  registry: z.string(),
  slug: z.string(),
  installed_version: z.string(),
  installed_at: z.number().int(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
});

export type SkillOrigin = z.infer<typeof skillOriginSchema>;

/**
 * Where an installed skill came from; undefined for a skill written by hand (or an origin file that does not parse).
 */
export function readOrigin(folder: string): SkillOrigin | undefined {
  try {
    const parsed = skillOriginSchema.safeParse(JSON.parse(readFileSync(join(folder, ORIGIN_FILE), 'utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

export function writeOrigin(folder: string, origin: SkillOrigin): void {
  writeFileSync(join(folder, ORIGIN_FILE), `${JSON.stringify(origin, null, 2)}\n`, { mode: 0o600 });
}
