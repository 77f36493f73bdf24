import { applyAliases } from './aliases.js';
import { channelsToList, migrate, type Migration } from './migrate.js';
import { applyPeerChannels } from './peer-channels.js';
import { applyPeerConventions } from './peer-conventions.js';
import { applyPeerModels } from './peer-models.js';
import { isRecord, type RawObject } from './raw.js';
import { configSchema } from './schema/index.js';
import { versionOf } from './version.js';

export interface Prepared {
  raw: RawObject;
  /** Present when the file was version 0 or 1 and needs rewriting. */
  migration?: Migration;
}

/** The spellings and the Go zero values of the peer runtime, read as it means them, with a note for each. */
function readPeerForms(raw: RawObject, warnings: string[], notes: string[]): void {
  applyAliases(raw, warnings);
  applyPeerChannels(raw, notes);
  applyPeerModels(raw, warnings);
  notes.push(...applyPeerConventions(raw, configSchema));
}

/**
 * Any known version into the version-2 shape, in memory: migration, then the aliases and conventions every version
 * accepts. `notes` says what was read differently from how it is written (never a problem).
 */
export function prepare(raw: RawObject, file: string, warnings: string[], notes: string[]): Prepared {
  const version = versionOf(raw, file);
  if (version === 0 || version === 1) {
    const migration = migrate(raw, version);
    readPeerForms(migration.raw, warnings, notes);
    return { raw: migration.raw, migration };
  }
  // The peer runtime's version 2 still wrote `channels`, flat (its version 3 moved them): read, never rewritten.
  if (isRecord(raw.channels)) channelsToList(raw, notes);
  if (version === 3) {
    notes.push("version 3 is the peer runtime's format: read as version 2, known aliases mapped, unknown keys ignored");
    raw.version = 2;
  }
  readPeerForms(raw, warnings, notes);
  return { raw };
}
