import type { AuthStore } from '../../store/auth-db.js';
import { passwordProblem } from './auth-bodies.js';
import { credentials } from './credentials.js';

export type TokenMigration = 'none' | 'adopted' | 'dropped';

/**
 * Older releases signed in with `launcher_token`. It becomes the password only when no password is set yet and
 * it would pass setup's own rule (a string of at least 8 characters after trimming); a shorter or non-string
 * token would be a password setup refuses, so it is dropped and the first visit goes to /launcher-setup.
 * Either way it is removed from the saved `launcher-config.json`, so the migration happens once.
 */
export async function migrateLegacyToken(store: AuthStore): Promise<TokenMigration> {
  const token = store.legacyToken();
  if (token === undefined) return 'none';
  const usable = typeof token === 'string' && passwordProblem(token, token) === undefined;
  const outcome = usable ? await credentials(store).set(token, 'first_run') : 'already_initialized';
  store.dropLegacyToken();
  return outcome === 'set' ? 'adopted' : 'dropped';
}
