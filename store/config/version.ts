import { ConfigError } from './errors.js';
import { LEGACY_KEYS } from './migrate.js';
import { isRecord, type RawObject } from './raw.js';

/** 0 and 1 migrate, 2 is current, 3 is the peer runtime's format (read as 2). */
export type KnownVersion = 0 | 1 | 2 | 3;

const KNOWN: readonly number[] = [0, 1, 2, 3];

function looksLegacy(raw: RawObject): boolean {
  return LEGACY_KEYS.some((key) => key in raw) || (isRecord(raw.session) && 'dm_scope' in raw.session);
}

/** A file without `version` is version 0 only when it carries old keys; a fresh hand-written file is current. */
export function versionOf(raw: RawObject, file: string): KnownVersion {
  const version = raw.version;
  if (version === undefined) return looksLegacy(raw) ? 0 : 2;
  if (typeof version === 'number' && KNOWN.includes(version)) return version as KnownVersion;
  throw new ConfigError('config_unknown_version', file, [
    `version: ${JSON.stringify(version)} is not a config version this ` +
      `build knows (allowed: 0, 1, 2, 3). Upgrade tern or fix the number`,
  ]);
}
