import { loadConfig } from './config/load.js';
import { defaultWorkspace } from './paths.js';

/**
 * The workspace the commands work on: the one the config names, or `<AGENT_HOME>/workspace` when the
 * config cannot be read (the command that needs the config reports why; reading the log should still work).
 */
export function resolveWorkspace(env: NodeJS.ProcessEnv = process.env): string {
  try {
    return loadConfig({ env, rewrite: false }).workspace;
  } catch {
    return defaultWorkspace(env);
  }
}
