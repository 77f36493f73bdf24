import type { Credentials } from './credentials-schema.js';
import { isRecord, stringsOf, type RawObject } from './raw.js';

/** Same pattern the channel schema uses to decide which settings are secrets. */
const SECRET_NAME = /(token|secret|password|api_key|aes_key|encrypt_key)$/i;

type Secrets = Required<Pick<Credentials, 'model_list' | 'web' | 'channel_list'>> & {
  skills: { registries: Record<string, { auth_token: string }> };
  launcher_token?: string;
};

function modelSecrets(raw: RawObject, into: Secrets): void {
  for (const entry of Array.isArray(raw.model_list) ? raw.model_list : []) {
    if (!isRecord(entry) || typeof entry.model_name !== 'string') continue;
    const keys = stringsOf(entry.api_keys, entry.api_key);
    delete entry.api_keys;
    delete entry.api_key;
    if (keys.length === 0) continue;
    const held = into.model_list[entry.model_name]?.api_keys ?? [];
    into.model_list[entry.model_name] = { api_keys: stringsOf(held, keys) };
  }
}

function webSecrets(raw: RawObject, into: Secrets): void {
  const web = isRecord(raw.tools) && isRecord(raw.tools.web) ? raw.tools.web : {};
  for (const [engine, block] of Object.entries(web)) {
    if (!isRecord(block)) continue;
    const found: { api_key?: string; api_keys?: string[] } = {};
    if (typeof block.api_key === 'string' && block.api_key !== '') found.api_key = block.api_key;
    const list = stringsOf(block.api_keys);
    if (list.length > 0) found.api_keys = list;
    delete block.api_key;
    delete block.api_keys;
    if (Object.keys(found).length > 0) into.web[engine] = found;
  }
}

function channelSecrets(raw: RawObject, into: Secrets): void {
  const channels = isRecord(raw.channel_list) ? raw.channel_list : {};
  for (const [name, channel] of Object.entries(channels)) {
    const settings = isRecord(channel) && isRecord(channel.settings) ? channel.settings : {};
    for (const [key, value] of Object.entries(settings)) {
      if (typeof value !== 'string' || !SECRET_NAME.test(key)) continue;
      delete settings[key];
      if (value !== '') into.channel_list[name] = { ...into.channel_list[name], [key]: value };
    }
  }
}

function registrySecrets(raw: RawObject, into: Secrets): void {
  const skills = isRecord(raw.tools) && isRecord(raw.tools.skills) ? raw.tools.skills : {};
  const registries = isRecord(skills.registries) ? skills.registries : {};
  for (const [name, registry] of Object.entries(registries)) {
    if (!isRecord(registry) || typeof registry.auth_token !== 'string') continue;
    if (registry.auth_token !== '') into.skills.registries[name] = { auth_token: registry.auth_token };
    delete registry.auth_token;
  }
}

/**
 * Moves every secret out of a version-2 config into the credentials shape. The config keeps no key, token
 * or password afterwards; MCP `env` and `headers` stay, since they are per-server settings, not credentials
 * the credentials file knows how to address.
 */
export function splitSecrets(raw: RawObject, launcherToken?: string): Secrets {
  const into: Secrets = { model_list: {}, web: {}, channel_list: {}, skills: { registries: {} } };
  modelSecrets(raw, into);
  webSecrets(raw, into);
  channelSecrets(raw, into);
  registrySecrets(raw, into);
  if (launcherToken) into.launcher_token = launcherToken;
  return into;
}

/** The credentials already on disk win; values only the config held are added, lists are joined. */
export function mergeCredentials(held: Credentials, moved: Secrets): Credentials {
  const model_list = { ...held.model_list };
  for (const [name, { api_keys = [] }] of Object.entries(moved.model_list)) {
    const existing = model_list[name];
    model_list[name] = { ...existing, api_keys: stringsOf(existing?.api_keys, existing?.api_key, api_keys) };
  }
  const web = { ...moved.web, ...held.web };
  const channel_list = { ...held.channels, ...held.channel_list };
  for (const [name, secrets] of Object.entries(moved.channel_list))
    channel_list[name] = { ...secrets, ...channel_list[name] };
  const registries = { ...moved.skills.registries, ...held.skills?.registries };
  const { channels: _legacyChannels, ...rest } = held;
  return {
    ...rest,
    model_list,
    web,
    channel_list,
    skills: { ...held.skills, registries },
    ...(moved.launcher_token && !held.launcher_token ? { launcher_token: moved.launcher_token } : {}),
  };
}
