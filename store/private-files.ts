import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { HeldDirectory } from './files/held-directory.js';

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
/**
 * The runtime's own entries in a workspace: the event log, the state files, the jobs database and the heartbeat log
 * with its archives. The workspace folder itself is owner-only too: a file a command made setuid there is then out
 * of other users' reach.
 */
const WORKSPACE_DIRS = new Set(['sessions', 'state', 'cron']);
const WORKSPACE_FILES = /^heartbeat\.log(\.\d+)?$/;
const GROUP_AND_OTHER = 0o077;

export const octal = (mode: number) => mode.toString(8).padStart(4, '0');

/**
 * Drops every group and other permission bit of `name` in the held folder, never through a link (a sandboxed command
 * may swap an entry for one while this runs). With `look` only, the fix is listed and not made (`tern doctor`).
 */
function ownerOnly(dir: HeldDirectory, name: string, fixes: ModeFix[], look: boolean): void {
  const change = dir.restrictMode(name, GROUP_AND_OTHER, look);
  if (change) fixes.push({ path: join(dir.path, name), ...change });
}

function ownerOnlyTree(dir: HeldDirectory, name: string, fixes: ModeFix[], look: boolean): void {
  ownerOnly(dir, name, fixes, look);
  let child: HeldDirectory;
  try {
    child = dir.child(name);
  } catch {
    // Not a folder, gone, or a link: nothing below it is the runtime's.
    return;
  }
  try {
    for (const entry of readdirSync(child.self)) ownerOnlyTree(child, entry, fixes, look);
  } finally {
    child.close();
  }
}

/** `path` itself, held by its parent folder; nothing when that folder cannot be reached. */
function withParent(path: string, work: (parent: HeldDirectory, name: string) => void): void {
  let parent: HeldDirectory;
  try {
    parent = HeldDirectory.openTrusted(dirname(path));
  } catch {
    return;
  }
  try {
    work(parent, basename(path));
  } finally {
    parent.close();
  }
}

/** A folder and everything in it owner-only (the dashboard's database, which creates its files 0644). */
export function makeTreePrivate(path: string): ModeFix[] {
  const fixes: ModeFix[] = [];
  withParent(path, (parent, name) => ownerOnlyTree(parent, name, fixes, false));
  return fixes;
}

/**
 * `AGENT_HOME` owner-only (0700), and in it the secret files (0600) and folders (0700, everything inside too),
 * plus a config file kept elsewhere (`AGENT_CONFIG`). Only bits are taken away, never added, and nothing else
 * is touched.
 */
export function makeSecretsPrivate(home: string, configFile?: string, look = false): ModeFix[] {
  const fixes: ModeFix[] = [];
  withParent(home, (parent, name) => ownerOnly(parent, name, fixes, look));
  let held: HeldDirectory | undefined;
  try {
    held = HeldDirectory.openTrusted(home);
    for (const entry of readdirSync(held.self)) {
      if (SECRET_FILES.test(entry)) ownerOnly(held, entry, fixes, look);
      else if (SECRET_DIRS.has(entry)) ownerOnlyTree(held, entry, fixes, look);
    }
  } catch {
    // No AGENT_HOME yet.
  } finally {
    held?.close();
  }
  if (configFile) withParent(configFile, (parent, name) => ownerOnly(parent, name, fixes, look));
  return fixes;
}

/**
 * Each workspace owner-only, and in it the runtime's own files: the event log in `sessions/`, `state/`, `cron/` and
 * `heartbeat.log`. The user's own files keep their modes. Wherever the workspace lies: one outside `AGENT_HOME` has
 * no owner-only folder around it.
 */
export function makeWorkspacesPrivate(workspaces: string[], look = false): ModeFix[] {
  const fixes: ModeFix[] = [];
  for (const workspace of new Set(workspaces)) {
    // One about to be made (by the event log, the first turn) is made owner-only now; that is no fix to report.
    if (!look && !existsSync(workspace)) mkdirSync(workspace, { recursive: true, mode: 0o700 });
    withParent(workspace, (parent, name) => ownerOnly(parent, name, fixes, look));
    let held: HeldDirectory | undefined;
    try {
      held = HeldDirectory.openTrusted(workspace);
      // Made before any command runs: an isolated command then meets it masked and cannot put a link in its place.
      if (!look && !existsSync(held.at('state'))) mkdirSync(held.at('state'), { mode: 0o700 });
      for (const entry of readdirSync(held.self)) {
        if (WORKSPACE_DIRS.has(entry)) ownerOnlyTree(held, entry, fixes, look);
        else if (WORKSPACE_FILES.test(entry)) ownerOnly(held, entry, fixes, look);
      }
    } catch {
      // Not made yet: it is made owner-only when it is.
    } finally {
      held?.close();
    }
  }
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
