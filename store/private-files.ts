import { chmodSync, lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** A mode this process tightened: the caller logs it, since a looser mode may have let someone read the file. */
export interface ModeFix {
  path: string;
  from: number;
  to: number;
}

/**
 * Files of `AGENT_HOME` that hold secrets, with their backups: keys, the credentials file, the dashboard's
 * password hash, cookie secret and live sessions, MCP tokens, who may talk to the bot (pairing). Logs hold what chats
 * said.
 */
const SECRET_FILES = /^(config\.json|\.security\.yml|launcher-config\.json|auth\.json|pairing\.json)(\.bak-.*)?$/;
const SECRET_DIRS = new Set(['launcher-auth.db', 'auth', 'logs']);

export const octal = (mode: number) => mode.toString(8).padStart(4, '0');

/**
 * Drops every group and other permission bit of one entry (a link is left alone: chmod would follow it). With `look`
 * only, the fix is listed and not made (`tern doctor` without `--fix`).
 */
function ownerOnly(path: string, fixes: ModeFix[], look = false): void {
  const stats = lstatSync(path, { throwIfNoEntry: false });
  if (!stats || stats.isSymbolicLink()) return;
  const mode = stats.mode & 0o7777;
  if ((mode & 0o077) === 0) return;
  const to = mode & ~0o077;
  if (!look) chmodSync(path, to);
  fixes.push({ path, from: mode, to });
}

function ownerOnlyTree(path: string, fixes: ModeFix[], look = false): void {
  ownerOnly(path, fixes, look);
  const stats = lstatSync(path, { throwIfNoEntry: false });
  if (!stats?.isDirectory()) return;
  for (const entry of readdirSync(path)) ownerOnlyTree(join(path, entry), fixes, look);
}

/** A folder and everything in it owner-only (the dashboard's database, which creates its files 0644). */
export function makeTreePrivate(path: string): ModeFix[] {
  const fixes: ModeFix[] = [];
  ownerOnlyTree(path, fixes);
  return fixes;
}

/**
 * `AGENT_HOME` owner-only (0700), and in it the secret files (0600) and folders (0700, everything inside too),
 * plus a config file kept elsewhere (`AGENT_CONFIG`). Only bits are taken away, never added, and nothing else
 * is touched: the workspace keeps the modes the user gave its files.
 */
export function makeSecretsPrivate(home: string, configFile?: string, look = false): ModeFix[] {
  const fixes: ModeFix[] = [];
  ownerOnly(home, fixes, look);
  let entries: string[] = [];
  try {
    entries = readdirSync(home);
  } catch {
    return fixes;
  }
  for (const entry of entries) {
    if (SECRET_FILES.test(entry)) ownerOnly(join(home, entry), fixes, look);
    else if (SECRET_DIRS.has(entry)) ownerOnlyTree(join(home, entry), fixes, look);
  }
  if (configFile) ownerOnly(configFile, fixes, look);
  return fixes;
}

/** What `makeSecretsPrivate` would tighten, changing nothing. */
export function looseSecretModes(home: string, configFile?: string): ModeFix[] {
  return makeSecretsPrivate(home, configFile, true);
}

/** How a fix reads in the log. */
export function describeFix(fix: ModeFix): string {
  return `${fix.path} was readable by other users (mode ${octal(fix.from)}); it is now ${octal(fix.to)}`;
}
