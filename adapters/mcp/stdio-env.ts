import { readEnvFile } from '../../store/config/env-file.js';
import { PROXY_VARIABLES, proxyCredentials } from '../../store/config/index.js';
import type { McpServerConfig } from './options.js';

function definedOnly(env: NodeJS.ProcessEnv, keys?: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of keys ?? Object.keys(env)) {
    const value = env[key];
    // Exported shell functions (`() {…`) can carry code into the child; the SDK drops them too.
    if (value !== undefined && !value.startsWith('()')) out[key] = value;
  }
  return out;
}

/**
 * The environment of a stdio server: a minimal safe set (PATH, HOME, …) unless `inherit_env`, then
 * `env_file` (relative to AGENT_HOME), then `env`, later ones winning. Keys and tokens of the runtime
 * itself therefore never reach a server that was not given them. `secrets` are the values the server was given that
 * must never be shown: those of `env_file` and `env`, and the credentials of the proxies it inherits.
 */
export function stdioEnvironment(
  server: McpServerConfig,
  processEnv: NodeJS.ProcessEnv,
  home: string,
  safeNames: readonly string[],
): { env: Record<string, string>; secrets: string[] } {
  const base = server.inherit_env ? definedOnly(processEnv) : definedOnly(processEnv, safeNames);
  const fromFile = server.env_file ? readEnvFile(server.env_file, home) : {};
  const env = { ...base, ...fromFile, ...(server.env ?? {}) };
  const proxies = PROXY_VARIABLES.flatMap((name) => proxyCredentials(env[name] ?? ''));
  return { env, secrets: [...Object.values(fromFile), ...Object.values(server.env ?? {}), ...proxies] };
}
