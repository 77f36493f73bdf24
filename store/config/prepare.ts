import { applyAliases } from './aliases.js';
import { migrate, type Migration } from './migrate.js';
import type { RawObject } from './raw.js';
import { versionOf } from './version.js';

export interface Prepared {
  raw: RawObject;
  /** Present when the file was version 0 or 1 and needs rewriting. */
  migration?: Migration;
}

/** Any known version into the version-2 shape, in memory: migration, then the aliases every version accepts. */
export function prepare(raw: RawObject, file: string, warnings: string[]): Prepared {
  const version = versionOf(raw, file);
  if (version === 0 || version === 1) {
    const migration = migrate(raw, version);
    applyAliases(migration.raw, warnings);
    return { raw: migration.raw, migration };
  }
  if (version === 3) {
    warnings.push('version 3 is the peer runtime\'s format: read as version 2, known aliases mapped, unknown keys ignored');
    raw.version = 2;
  }
  applyAliases(raw, warnings);
  return { raw };
}
