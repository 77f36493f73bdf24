import type { Config } from '../../store/config/index.js';
import type { RegistryType } from '../../store/config/schema/tools/skills.js';
import type { RegistryHttpOptions } from './http.js';

export type SkillsConfig = Config['tools']['skills'];

/** One registry as the clients take it: defaults filled in, the token revealed. */
export interface RegistrySettings {
  name: string;
  kind: RegistryType;
  baseUrl: string;
  token?: string;
  proxy?: string;
  timeoutMs: number;
  maxZipBytes: number;
  maxResponseBytes: number;
  /** ClawHub wire paths. */
  searchPath: string;
  skillsPath: string;
  downloadPath: string;
}

export interface SkillsSettings {
  registries: RegistrySettings[];
  maxConcurrentSearches: number;
  /** `0` for either turns the cache off. */
  cache: { maxSize: number; ttlMs: number };
  installAllowedRemotes: readonly string[];
}

/** The peer runtime's defaults, used wherever the config says 0 or leaves a path empty. */
export const REGISTRY_DEFAULTS = {
  timeoutMs: 30_000,
  maxZipBytes: 50 * 1024 * 1024,
  maxResponseBytes: 2 * 1024 * 1024,
  searchPath: '/api/v1/search',
  skillsPath: '/api/v1/skills',
  downloadPath: '/api/v1/download',
  baseUrl: { clawhub: 'https://clawhub.ai', github: 'https://api.github.com' },
} as const;

type Registries = SkillsConfig['registries'];
type RegistryEntry = Registries['clawhub'] | Registries['github'] | Registries[string];

function kindOf(name: string, entry: RegistryEntry): RegistryType {
  if (name === 'clawhub' || name === 'github') return name;
  return 'type' in entry && entry.type === 'github' ? 'github' : 'clawhub';
}

function pathOr(entry: RegistryEntry, key: 'search_path' | 'skills_path' | 'download_path', fallback: string): string {
  const value = key in entry ? (entry as Record<typeof key, string>)[key].trim() : '';
  return value === '' ? fallback : value.startsWith('/') ? value : `/${value}`;
}

export function registrySettings(name: string, entry: RegistryEntry): RegistrySettings {
  const kind = kindOf(name, entry);
  const token = entry.auth_token.reveal();
  const proxy = entry.proxy.trim();
  return {
    name,
    kind,
    baseUrl: (entry.base_url.trim() || REGISTRY_DEFAULTS.baseUrl[kind]).replace(/\/+$/, ''),
    ...(token ? { token } : {}),
    ...(proxy ? { proxy } : {}),
    timeoutMs: entry.timeout > 0 ? entry.timeout * 1000 : REGISTRY_DEFAULTS.timeoutMs,
    maxZipBytes: entry.max_zip_size > 0 ? entry.max_zip_size : REGISTRY_DEFAULTS.maxZipBytes,
    maxResponseBytes: entry.max_response_size > 0 ? entry.max_response_size : REGISTRY_DEFAULTS.maxResponseBytes,
    searchPath: pathOr(entry, 'search_path', REGISTRY_DEFAULTS.searchPath),
    skillsPath: pathOr(entry, 'skills_path', REGISTRY_DEFAULTS.skillsPath),
    downloadPath: pathOr(entry, 'download_path', REGISTRY_DEFAULTS.downloadPath),
  };
}

/** The enabled registries in the config's order (`clawhub`, `github`, then the others as written). */
export function skillsSettings(skills: SkillsConfig): SkillsSettings {
  const registries = Object.entries(skills.registries)
    .filter(([, entry]) => entry.enabled)
    .map(([name, entry]) => registrySettings(name, entry));
  return {
    registries,
    maxConcurrentSearches: skills.max_concurrent_searches,
    cache: { maxSize: skills.search_cache.max_size, ttlMs: skills.search_cache.ttl_seconds * 1000 },
    installAllowedRemotes: skills.install_allowed_remotes,
  };
}

/** What every call to a registry takes from its settings: the time limit, the answer cap, the token and the proxy. */
export function requestOptions(settings: RegistrySettings, signal?: AbortSignal, accept?: string): RegistryHttpOptions {
  const { timeoutMs, maxResponseBytes, token, proxy } = settings;
  return {
    timeoutMs,
    maxBytes: maxResponseBytes,
    ...(accept ? { accept } : {}),
    ...(token ? { token } : {}),
    ...(proxy ? { proxy } : {}),
    ...(signal ? { signal } : {}),
  };
}
