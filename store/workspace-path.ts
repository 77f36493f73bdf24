import { defaultWorkspace } from './paths.js';

/**
 * The workspace the commands work on. Until the config is read here, it is the default under AGENT_HOME.
 */
export function resolveWorkspace(env: NodeJS.ProcessEnv = process.env): string {
  return defaultWorkspace(env);
}
