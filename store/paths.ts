import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

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

/** The config file: `AGENT_CONFIG` wins over every other location, else `<AGENT_HOME>/config.json`. */
export function configPath(env: NodeJS.ProcessEnv = process.env): string {
  const chosen = env.AGENT_CONFIG?.trim();
  return chosen ? resolve(expandHome(chosen)) : join(agentHome(env), 'config.json');
}

/** Secrets kept apart from the config: `<AGENT_HOME>/.security.yml`. */
export function credentialsPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(agentHome(env), '.security.yml');
}

/** Built-in skills: `AGENT_BUILTIN_SKILLS`, else the `skills/` folder of the package (dist/ sits one level deeper). */
export function builtinSkillsDir(env: NodeJS.ProcessEnv = process.env): string {
  const chosen = env.AGENT_BUILTIN_SKILLS?.trim();
  if (chosen) return resolve(expandHome(chosen));
  const candidates = ['../skills', '../../skills'].map((p) => fileURLToPath(new URL(p, import.meta.url)));
  return candidates.find((dir) => existsSync(dir)) ?? candidates[0]!;
}

/** The extra log file named by `AGENT_LOG_FILE`, rotated like the others. */
export function extraLogFile(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const chosen = env.AGENT_LOG_FILE?.trim();
  return chosen ? resolve(expandHome(chosen)) : undefined;
}
