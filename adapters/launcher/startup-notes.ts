import type { LauncherApp } from './app.js';

/** Lines the launcher prints at start so the user knows about anything unusual in how sign-in works. */
export function startupNotes(
  launcher: Pick<LauncherApp, 'storage' | 'tokenMigration'>,
  env: NodeJS.ProcessEnv,
): string[] {
  const notes: string[] = [];
  if (env.AGENT_LAUNCHER_TOKEN !== undefined)
    notes.push(
      'AGENT_LAUNCHER_TOKEN is no longer used for dashboard sign-in and is ignored; ' +
        'sign in with the dashboard password.',
    );
  if (launcher.storage.file === 'launcher-config.json')
    notes.push(
      `launcher-auth.db could not be opened (${launcher.storage.reason}); ` +
        'the password hash is kept in launcher-config.json and sign-ins end when the launcher stops.',
    );
  if (launcher.tokenMigration === 'adopted')
    notes.push('the old launcher_token is now the dashboard password; it was removed from launcher-config.json.');
  if (launcher.tokenMigration === 'dropped')
    notes.push(
      'the old launcher_token was removed from launcher-config.json; it could not become the password ' +
        '(a password was already set, or it had fewer than 8 characters).',
    );
  return notes;
}
