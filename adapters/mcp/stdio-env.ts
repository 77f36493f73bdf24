import { readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { expandHome } from '../../store/paths.js';
import { EnvFileError, parseEnvFile } from './env-file.js';
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

function readEnvFile(path: string, home: string): Record<string, string> {
  const expanded = expandHome(path);
  const file = isAbsolute(expanded) ? expanded : join(home, expanded);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new EnvFileError(file, 0, `cannot be read (${(error as NodeJS.ErrnoException).code ?? 'unknown error'})`);
  }
  return parseEnvFile(text, file);
}

/**
 * The environment of a stdio server: a minimal safe set (PATH, HOME, …) unless `inherit_env`, then
 * `env_file` (relative to AGENT_HOME), then `env`, later ones winning. Keys and tokens of the runtime
 * itself therefore never reach a server that was not given them.
 */
export function stdioEnvironment(server: McpServerConfig, processEnv: NodeJS.ProcessEnv, home: string, safeNames: readonly string[]): Record<string, string> {
  const base = server.inherit_env ? definedOnly(processEnv) : definedOnly(processEnv, safeNames);
  const fromFile = server.env_file ? readEnvFile(server.env_file, home) : {};
  return { ...base, ...fromFile, ...(server.env ?? {}) };
}
