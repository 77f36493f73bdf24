import { loadConfig, type LoadedConfig } from './config/load.js';
import { defaultWorkspace } from './paths.js';

/**
 * The config as read for a command that works on the log, with the workspace it names; `loaded` is undefined and the
 * workspace `<AGENT_HOME>/workspace` when the config cannot be read (the command that needs the config reports why;
 * reading the log should still work). One read serves both: a config given as a pipe (`AGENT_CONFIG=<(…)`) can be
 * read only once.
 */
export function readWorkspaceConfig(env: NodeJS.ProcessEnv = process.env): {
  loaded: LoadedConfig | undefined;
  workspace: string;
} {
  try {
    const loaded = loadConfig({ env, rewrite: false });
    return { loaded, workspace: loaded.workspace };
  } catch {
    return { loaded: undefined, workspace: defaultWorkspace(env) };
  }
}

/** The workspace the commands work on: the one the config names, or `<AGENT_HOME>/workspace` when it cannot be read. */
export function resolveWorkspace(env: NodeJS.ProcessEnv = process.env): string {
  return readWorkspaceConfig(env).workspace;
}
