import { dirname, join, sep } from 'node:path';
import { isWithin } from './resolve-real.js';

/**
 * The protected-file table of the spec. Names compare case-insensitively: on case-insensitive file
 * systems `.ENV` is `.env`, and refusing a harmless `.ENV` on Linux costs nothing.
 */
const CREDENTIAL_FILES = new Set(['.env', '.envrc', '.netrc', '.npmrc', '.pypirc', '.pgpass', '.git-credentials']);
const CREDENTIAL_DIRS = new Set(['.ssh', '.aws', '.kube', '.gnupg', '.docker', '.azure']);
const CONFIG_CREDENTIAL_DIRS = new Set(['gh', 'gcloud']);
// `plugins-data` is the default plugin-data root (store/plugins/locations.ts); a custom `plugins.data_dir` is not
// covered (spec).
const HOME_CREDENTIALS = ['auth.json', 'auth/mcp', 'plugins-data', 'channels/weixin/context-tokens'];
const SYSTEM_WRITE_TARGETS = ['/etc/sudoers', '/etc/passwd', '/etc/shadow', '/etc/sudoers.d', '/etc/systemd'];
/**
 * The runtime's own entries in a workspace, refused for reading too: `sessions/` holds the event log (every chat's
 * history), `state/` and `cron/` the runtime's state and jobs, and `heartbeat.log` what heartbeat turns did. Read, they
 * leak other chats; written or replaced, they forge history or lead the runtime elsewhere (issue #34).
 */
const RUNTIME_DIRS = ['sessions', 'state', 'cron'];
const RUNTIME_FILE = /^heartbeat\.log(\.\d+)?$/;

/** Absolute, lower-cased protected locations, computed once per sandbox. */
export interface ProtectedRoots {
  /** Credentials under `AGENT_HOME` and the coding-tool home, each as given and as resolved. */
  credentials: string[];
  /** The workspace, as given and as resolved. */
  workspaces: string[];
  /** The runtime's folders in the workspace (`sessions/`, `state/`, `cron/`), as given and as resolved. */
  runtime: string[];
}

export function protectedRoots(homes: string[], codingToolHomes: string[], workspaces: string[]): ProtectedRoots {
  const under = (roots: string[], entries: string[]) =>
    roots.flatMap((root) => entries.map((entry) => join(root, entry).toLowerCase()));
  return {
    credentials: [...under(homes, HOME_CREDENTIALS), ...under(codingToolHomes, ['auth.json'])],
    workspaces: workspaces.map((root) => root.toLowerCase()),
    runtime: under(workspaces, RUNTIME_DIRS),
  };
}

function isRuntimeEntry(lower: string, name: string, roots: ProtectedRoots): boolean {
  if (roots.runtime.some((root) => isWithin(lower, root))) return true;
  return RUNTIME_FILE.test(name) && roots.workspaces.includes(dirname(lower));
}

/** Who is asking decides one exception: `write_file` may create or replace `.env.example`. */
export type Access = 'read' | 'write' | 'write_file';

function isCredentialName(name: string, access: Access): boolean {
  if (CREDENTIAL_FILES.has(name) || name.startsWith('.security.yml')) return true;
  if (!name.startsWith('.env.')) return false;
  return !(access === 'write_file' && name === '.env.example');
}

function hasCredentialDir(segments: string[]): boolean {
  return segments.some(
    (segment, i) =>
      CREDENTIAL_DIRS.has(segment) || (segment === '.config' && CONFIG_CREDENTIAL_DIRS.has(segments[i + 1] ?? '')),
  );
}

/** `path` is absolute and normalized. */
export function isProtected(path: string, access: Access, roots: ProtectedRoots): boolean {
  const lower = path.toLowerCase();
  const segments = lower.split(sep).filter(Boolean);
  const name = segments.at(-1) ?? '';
  if (isCredentialName(name, access) || hasCredentialDir(segments)) return true;
  if (roots.credentials.some((root) => isWithin(lower, root))) return true;
  if (isRuntimeEntry(lower, name, roots)) return true;
  return access !== 'read' && SYSTEM_WRITE_TARGETS.some((target) => isWithin(lower, target));
}
