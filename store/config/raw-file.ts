import { existsSync } from 'node:fs';
import { readConfigObject, writeFileAtomic } from './files.js';
import { ConfigError } from './errors.js';
import { validateConfig } from './load.js';
import type { RawObject } from './raw.js';

/** The config file as written (a missing file is an empty version-2 config), for commands that edit one block. */
export function readRawConfig(path: string): RawObject {
  return existsSync(path) ? readConfigObject(path) : { version: 2 };
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
