import { existsSync } from 'node:fs';
import { yamlLibrary } from './yaml.js';
import { ConfigError } from './errors.js';
import { readText, writeFileAtomic } from './files.js';

/** A value to set in `.security.yml`, at a path of keys (`['model_list', 'fast', 'api_keys']`). */
export interface CredentialEntry {
  path: string[];
  value: string | string[];
}

/**
 * Sets values in the credentials file, keeping its comments and every other value, and writes it owner-only (0600)
 * in one rename. A file that is not YAML is an error naming it; nothing is written then.
 */
export function setCredentials(file: string, entries: readonly CredentialEntry[]): void {
  const { isMap, parseDocument } = yamlLibrary();
  const document = parseDocument(existsSync(file) ? readText(file) : '');
  if (document.errors.length > 0) {
    throw new ConfigError('credentials_invalid', file, [
      `(file): not valid YAML (${document.errors[0]!.message.split('\n')[0]})`,
    ]);
  }
  if (document.contents !== null && !isMap(document.contents)) {
    throw new ConfigError('credentials_invalid', file, [
      '(file): is not a mapping (allowed: model_list, web, channel_list, skills)',
    ]);
  }
  for (const { path, value } of entries) document.setIn(path, value);
  writeFileAtomic(file, document.toString());
}
