import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';

type Yaml = typeof import('yaml');

const load = createRequire(import.meta.url);
let yaml: Yaml | undefined;

/** Entries the cache keeps; past that it starts again (a workspace that churns through skills). */
const MAX_ENTRIES = 500;

let cache: { file: string; parsed: Map<string, unknown> } | undefined;

/**
 * Keeps what front matter parsed to in `dir` (`frontmatter.json`), keyed by the front matter's own text, so a
 * process that reads the same `AGENT.md` and `SKILL.md` headers as the last one loads no YAML library: a one-shot
 * `tern agent -m` read four headers and compiled yaml (about 160 KB) for them at every run. Set by a command that
 * runs turns; without it every header is parsed.
 */
export function keepFrontmatterIn(dir: string): void {
  const file = join(dir, 'frontmatter.json');
  let entries: Array<[string, unknown]> = [];
  try {
    const stored: unknown = JSON.parse(readFileSync(file, 'utf8'));
    if (Array.isArray(stored)) entries = stored.filter((e): e is [string, unknown] => typeof e?.[0] === 'string');
  } catch {
    // None yet, or unreadable: it is made again from the headers read.
  }
  cache = { file, parsed: new Map(entries) };
}

/** YAML front matter (the text between the `---` fences) as data; throws what yaml throws for text that is not YAML. */
export function parseFrontmatter(text: string): unknown {
  if (cache?.parsed.has(text)) return structuredClone(cache.parsed.get(text));
  yaml ??= load('yaml') as Yaml;
  const data: unknown = yaml.parse(text);
  // Kept only when JSON gives it back as it is (YAML can say `.inf`, which JSON cannot).
  if (cache && isDeepStrictEqual(JSON.parse(JSON.stringify(data) ?? 'null'), data)) remember(cache, text, data);
  return data;
}

function remember(into: NonNullable<typeof cache>, text: string, data: unknown): void {
  if (into.parsed.size >= MAX_ENTRIES) into.parsed.clear();
  into.parsed.set(text, data);
  // Another process may write it meanwhile: each rename leaves a whole file, and a header it lost is parsed again.
  const temp = `${into.file}.tmp-${process.pid}`;
  try {
    mkdirSync(join(into.file, '..'), { recursive: true, mode: 0o700 });
    writeFileSync(temp, JSON.stringify([...into.parsed]), { mode: 0o600 });
    renameSync(temp, into.file);
  } catch {
    rmSync(temp, { force: true });
  }
}
