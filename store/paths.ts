import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

/** `~` and `~/…` expand to the user's home directory. */
export function expandHome(path: string, home = homedir()): string {
  if (path === '~') return home;
  if (path.startsWith('~/')) return join(home, path.slice(2));
  return path;
}

/** Root of all runtime data: `AGENT_HOME`, else `~/.agent`. */
export function agentHome(env: NodeJS.ProcessEnv = process.env): string {
  return resolve(expandHome(env.AGENT_HOME?.trim() || '~/.agent'));
}

/** The workspace when the config names none: `<AGENT_HOME>/workspace`. */
export function defaultWorkspace(env: NodeJS.ProcessEnv = process.env): string {
  return join(agentHome(env), 'workspace');
}

/** The event log lives in the workspace's `sessions/` directory. */
export function logDir(workspace: string): string {
  return join(workspace, 'sessions');
}
