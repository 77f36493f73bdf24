import { yamlLibrary } from './yaml.js';
import type { Credentials } from './credentials-schema.js';
import { backupFile, writeFileAtomic } from './files.js';
import type { RawObject } from './raw.js';

const CREDENTIALS_HEADER =
  '# Tern credentials: keys and tokens kept apart from config.json. Keep this file private (chmod 600).\n';

/**
 * Rewrites a migrated config and its credentials. Both files are backed up first, and the credentials are
 * written before the config, so a crash in between leaves the old config (secrets included) in place.
 * Returns a note for the user.
 */
export function writeMigration(
  config: RawObject,
  credentials: Credentials,
  configFile: string,
  credentialsFile: string,
): string {
  const date = new Date();
  const backups = [backupFile(configFile, date), backupFile(credentialsFile, date)].filter(
    (b): b is string => b !== undefined,
  );
  writeFileAtomic(credentialsFile, CREDENTIALS_HEADER + yamlLibrary().stringify(credentials));
  const { version, ...blocks } = config;
  writeFileAtomic(configFile, `${JSON.stringify({ version, ...blocks }, null, 2)}\n`);
  return (
    `rewrote ${configFile} as version 2 and moved its secrets to ` +
    `${credentialsFile} (backups: ${backups.join(', ')})`
  );
}
