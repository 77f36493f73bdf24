import { join, sep } from 'node:path';
import { isWithin } from './resolve-real.js';

/**
 * The protected-file table of the spec. Names compare case-insensitively: on case-insensitive file
 * systems `.ENV` is `.env`, and refusing a harmless `.ENV` on Linux costs nothing.
 */
const CREDENTIAL_FILES = new Set(['.env', '.envrc', '.netrc', '.npmrc', '.pypirc', '.pgpass', '.git-credentials']);
const CREDENTIAL_DIRS = new Set(['.ssh', '.aws', '.kube', '.gnupg', '.docker', '.azure']);
const CONFIG_CREDENTIAL_DIRS = new Set(['gh', 'gcloud']);
// `plugins-data` is the default plugin-data root (store/plugins/locations.ts); a custom `plugins.data_dir` is not covered (spec).
const HOME_CREDENTIALS = ['auth.json', 'auth/mcp', 'plugins-data', 'channels/weixin/context-tokens'];
const SYSTEM_WRITE_TARGETS = ['/etc/sudoers', '/etc/passwd', '/etc/shadow', '/etc/sudoers.d', '/etc/systemd'];

/** Absolute, lower-cased protected locations, computed once per sandbox. */
export interface ProtectedRoots {
  /** Credentials under `AGENT_HOME` and the coding-tool home, each as given and as resolved. */
  credentials: string[];
  /** The workspace `sessions/` directory, as given and as resolved. */
  sessions: string[];
}

export function protectedRoots(homes: string[], codingToolHomes: string[], sessions: string[]): ProtectedRoots {
  const under = (roots: string[], entries: string[]) => roots.flatMap((root) => entries.map((entry) => join(root, entry).toLowerCase()));
  return {
    credentials: [...under(homes, HOME_CREDENTIALS), ...under(codingToolHomes, ['auth.json'])],
    sessions: sessions.map((root) => root.toLowerCase()),
  };
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
  if (access === 'read') return false;
  if (SYSTEM_WRITE_TARGETS.some((target) => isWithin(lower, target))) return true;
  return roots.sessions.some((root) => isWithin(lower, root));
}
