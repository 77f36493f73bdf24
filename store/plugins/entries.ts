import { readRawConfig, writeRawConfig } from '../config/raw-file.js';
import { isRecord, objectAt } from '../config/raw.js';

/** `tern plugins enable|disable` set `plugins.entries.<name>.enabled`; `remove` deletes the entry. */
export type PluginEntryEdit = { kind: 'enable' | 'disable' | 'remove'; name: string };

/**
 * Applies one edit to the config file, leaving every other key as written; an edit that would not validate writes
 * nothing.
 */
export function editPluginEntry(path: string, edit: PluginEntryEdit): void {
  const raw = readRawConfig(path);
  const entries = objectAt(raw, ['plugins', 'entries']);
  if (edit.kind === 'remove') {
    delete entries[edit.name];
  } else {
    const entry = isRecord(entries[edit.name]) ? (entries[edit.name] as Record<string, unknown>) : {};
    entries[edit.name] = { ...entry, enabled: edit.kind === 'enable' };
  }
  writeRawConfig(path, raw);
}
