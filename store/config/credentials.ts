import { existsSync, statSync } from 'node:fs';
import { yamlLibrary } from './yaml.js';
import { credentialsSchema, type Credentials } from './credentials-schema.js';
import { ConfigError } from './errors.js';
import { readText } from './files.js';
import { formatIssues, secretErrorMap } from './problems.js';
import { isRecord, objectAt, stringsOf, type RawObject } from './raw.js';

export const CREDENTIALS_ORIGIN = '.security.yml';

export interface CredentialsFile {
  credentials: Credentials;
  warnings: string[];
}

function permissionWarning(path: string): string[] {
  const mode = statSync(path).mode & 0o777;
  if ((mode & 0o077) === 0) return [];
  return [`${path} is readable by other users (mode ${mode.toString(8).padStart(4, '0')}); run chmod 600 ${path}`];
}

/** A missing file holds no secrets; a malformed one is an error naming each problem. */
export function readCredentials(path: string): CredentialsFile {
  if (!existsSync(path)) return { credentials: {}, warnings: [] };
  const text = readText(path);
  let parsed: unknown;
  try {
    parsed = yamlLibrary().parse(text) ?? {};
  } catch (error) {
    throw new ConfigError('credentials_invalid', path, [
      `(file): not valid YAML (${(error as Error).message.split('\n')[0]})`,
    ]);
  }
  const result = credentialsSchema.safeParse(parsed, { error: secretErrorMap });
  if (!result.success) throw new ConfigError('credentials_invalid', path, formatIssues(result.error.issues));
  const known = new Set(Object.keys(credentialsSchema.shape));
  const unknown = isRecord(parsed) ? Object.keys(parsed).filter((k) => !known.has(k)) : [];
  return {
    credentials: result.data,
    warnings: [...permissionWarning(path), ...unknown.map((k) => `${path}: unknown key ${k} (ignored)`)],
  };
}

type Origins = Map<string, string>;

function applyModelKeys(raw: RawObject, credentials: Credentials, origins: Origins, warnings: string[]): void {
  const models = Array.isArray(raw.model_list) ? raw.model_list : [];
  for (const [name, entry] of Object.entries(credentials.model_list ?? {})) {
    const keys = stringsOf(entry.api_keys, entry.api_key);
    const targets = models.map((m, i) => [m, i] as const).filter(([m]) => isRecord(m) && m.model_name === name);
    if (targets.length === 0)
      warnings.push(`${CREDENTIALS_ORIGIN}: model_list.${name} matches no model_name in the config (ignored)`);
    for (const [model, i] of targets) {
      (model as RawObject).api_keys = keys;
      delete (model as RawObject).api_key;
      keys.forEach((_, k) => origins.set(`model_list[${i}].api_keys[${k}]`, CREDENTIALS_ORIGIN));
    }
  }
}

function applyWebKeys(raw: RawObject, credentials: Credentials, origins: Origins): void {
  for (const [engine, entry] of Object.entries(credentials.web ?? {})) {
    const block = objectAt(raw, ['tools', 'web', engine]);
    if (entry.api_key !== undefined) block.api_key = entry.api_key;
    if (entry.api_keys !== undefined) block.api_keys = entry.api_keys;
    origins.set(`tools.web.${engine}.api_key`, CREDENTIALS_ORIGIN);
    entry.api_keys?.forEach((_, k) => origins.set(`tools.web.${engine}.api_keys[${k}]`, CREDENTIALS_ORIGIN));
  }
}

function applyChannelSecrets(raw: RawObject, credentials: Credentials, warnings: string[]): void {
  const channels = { ...credentials.channels, ...credentials.channel_list };
  const list = isRecord(raw.channel_list) ? raw.channel_list : {};
  for (const [name, secrets] of Object.entries(channels)) {
    const channel = list[name];
    if (!isRecord(channel)) {
      warnings.push(`${CREDENTIALS_ORIGIN}: channel_list.${name} matches no channel in the config (ignored)`);
      continue;
    }
    Object.assign(objectAt(channel, ['settings']), secrets);
  }
}

/**
 * A token fills the registry of its name: `clawhub` and `github` always exist; any other name only when the config
 * has that registry (a token alone would otherwise make a registry of the default host).
 */
function applyRegistryTokens(raw: RawObject, credentials: Credentials, warnings: string[]): void {
  const registries = { ...credentials.skills?.registries };
  if (credentials.skills?.github) registries.github ??= { auth_token: credentials.skills.github.token };
  if (Object.keys(registries).length === 0) return;
  const configured = objectAt(raw, ['tools', 'skills', 'registries']);
  for (const [name, { auth_token }] of Object.entries(registries)) {
    if (name !== 'clawhub' && name !== 'github' && !isRecord(configured[name])) {
      warnings.push(`${CREDENTIALS_ORIGIN}: skills.registries.${name} matches no registry in the config (ignored)`);
      continue;
    }
    objectAt(configured, [name]).auth_token = auth_token;
  }
}

/** The cluster's NATS credentials (`cluster.token`, or `cluster.user` and `cluster.password`). */
function applyClusterCredentials(raw: RawObject, credentials: Credentials, origins: Origins): void {
  const secrets = credentials.cluster;
  if (!secrets) return;
  const block = objectAt(raw, ['cluster']);
  for (const key of ['token', 'user', 'password'] as const) {
    if (secrets[key] === undefined) continue;
    block[key] = secrets[key];
    origins.set(`cluster.${key}`, CREDENTIALS_ORIGIN);
  }
}

/** Credentials win over the config file: each value replaces the config's value for the same field. */
export function applyCredentials(raw: RawObject, credentials: Credentials, origins: Origins, warnings: string[]): void {
  applyModelKeys(raw, credentials, origins, warnings);
  applyWebKeys(raw, credentials, origins);
  applyChannelSecrets(raw, credentials, warnings);
  applyRegistryTokens(raw, credentials, warnings);
  applyClusterCredentials(raw, credentials, origins);
}
