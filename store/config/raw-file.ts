import { existsSync, readFileSync } from 'node:fs';
import { writeFileAtomic } from './files.js';
import { jsonSyntaxProblem } from './json-error.js';
import { ConfigError } from './errors.js';
import { validateConfig } from './load.js';
import { isRecord, type RawObject } from './raw.js';

/** The config file as written (a missing file is an empty version-2 config), for commands that edit one block. */
export function readRawConfig(path: string): RawObject {
  if (!existsSync(path)) return { version: 2 };
  const text = readFileSync(path, 'utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    const { problem, excerpt } = jsonSyntaxProblem(text, error as Error);
    throw new ConfigError('config_unreadable', path, [problem], excerpt);
  }
  if (!isRecord(parsed))
    throw new ConfigError('config_invalid', path, ['(config): is not an object (allowed: a JSON object of blocks)']);
  return parsed;
}

/**
 * Writes an edited config only if it still validates; otherwise `ConfigError` lists the problems and nothing is
 * written.
 */
export function writeRawConfig(path: string, raw: RawObject): void {
  const validation = validateConfig(raw);
  if (!validation.ok) throw new ConfigError('config_invalid', path, validation.problems);
  writeFileAtomic(path, `${JSON.stringify(raw, null, 2)}\n`);
}
