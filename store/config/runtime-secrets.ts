import { readEnvFile } from './env-file.js';
import type { Config } from './schema/index.js';
import { secretValues } from './secret.js';

/** The environment variables that name a proxy, as curl and undici read them. */
export const PROXY_VARIABLES = [
  'http_proxy',
  'HTTP_PROXY',
  'https_proxy',
  'HTTPS_PROXY',
  'all_proxy',
  'ALL_PROXY',
] as const;

function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * The secret parts of a proxy URL (`http://user:pass@host:port`): the password as written and decoded, and
 * `user:pass`; a lone user name is a token (`http://token@host`). None for a URL without credentials.
 */
export function proxyCredentials(proxy: string): string[] {
  let url: URL;
  try {
    url = new URL(proxy);
  } catch {
    return [];
  }
  if (!url.password) return url.username ? [url.username, decoded(url.username)] : [];
  return [url.password, decoded(url.password), `${url.username}:${url.password}`];
}

/** A proxy URL without its credentials (scheme, host and port kept), or the text as it was when it is no URL. */
function withoutCredentials(proxy: string): string {
  let url: URL;
  try {
    url = new URL(proxy);
  } catch {
    return proxy;
  }
  if (!url.username && !url.password) return proxy;
  url.username = '';
  url.password = '';
  // `new URL` adds a slash to a bare origin; keep the variable as it was written otherwise.
  return proxy.endsWith('/') ? url.href : url.href.replace(/\/$/, '');
}

/**
 * The environment with every proxy variable's user and password taken out. What exec runs is written by the model,
 * which could print or send anything in its environment (an output filter catches only verbatim copies, not
 * `echo $http_proxy | base64`), so the proxy's address is passed on and its credentials are not.
 */
export function withoutProxyCredentials(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { ...env };
  for (const name of PROXY_VARIABLES) {
    const value = out[name];
    if (value) out[name] = withoutCredentials(value);
  }
  return out;
}

/** Where a loaded config came from, for the secrets it does not hold itself: the environment and `AGENT_HOME`. */
export interface SecretSources {
  env: NodeJS.ProcessEnv;
  home: string;
}

const sourcesOf = new WeakMap<Config, SecretSources>();

/** Called by the loader: the secrets of this config include its environment's proxies and its MCP `env_file`s. */
export function noteSecretSources(config: Config, sources: SecretSources): void {
  sourcesOf.set(config, sources);
}

/** Every `proxy` URL in the config (models, channels, web tools, skill registries). */
function configProxies(value: unknown, found: string[] = []): string[] {
  if (Array.isArray(value)) value.forEach((item) => configProxies(item, found));
  else if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      if (key === 'proxy' && typeof item === 'string' && item !== '') found.push(item);
      else configProxies(item, found);
    }
  }
  return found;
}

/** The values of each MCP server's `env_file`; a file that cannot be read (its server fails, saying why) adds none. */
function envFileValues(config: Config, home: string): string[] {
  return Object.values(config.tools.mcp.servers).flatMap((server) => {
    if (!server.env_file) return [];
    try {
      return Object.values(readEnvFile(server.env_file, home));
    } catch {
      return [];
    }
  });
}

/**
 * What the one redaction must hide for a config: its secrets (keys, tokens, MCP `env` and `headers`), the
 * credentials of every proxy it or its environment names, and the values of its MCP servers' `env_file`s.
 */
export function runtimeSecrets(config: Config): string[] {
  const sources = sourcesOf.get(config);
  const env = sources?.env ?? process.env;
  const proxies = [...configProxies(config), ...PROXY_VARIABLES.flatMap((name) => env[name] ?? [])];
  const found = new Set([...secretValues(config), ...proxies.flatMap(proxyCredentials)]);
  if (sources) for (const value of envFileValues(config, sources.home)) found.add(value);
  return [...found].filter((value) => value !== '');
}
