import { foldGithubSkills } from './aliases.js';
import { isRecord, objectAt, stringsOf, type RawObject } from './raw.js';

export type LegacyVersion = 0 | 1;

export interface Migration {
  /** The config in version-2 shape, secrets still inline. */
  raw: RawObject;
  /** What the migration decided, for the user to read. */
  notes: string[];
  /** The old dashboard token, handed to the launcher to turn into a password login once. */
  launcherToken?: string;
}

/** Keys of a v0/v1 config that only the migration understands. */
export const LEGACY_KEYS = ['providers', 'channels', 'bindings', 'launcher_token'] as const;

/** `dm_scope` picked one of a few fixed sharing rules; each is a set of session dimensions now. */
const DM_SCOPE_DIMENSIONS: Record<string, string[]> = {
  main: [],
  'per-peer': ['sender'],
  'per-channel-peer': ['sender'],
  'per-account-channel-peer': ['sender'],
};

const LOCAL_HOST = /^https?:\/\/(localhost|127\.|\[::1\]|0\.0\.0\.0)/;

/** Entries without keys stay on only where they can work without one: local servers. */
function inferEnabled(entry: RawObject): void {
  if (entry.enabled !== undefined) return;
  const keys = stringsOf(entry.api_keys);
  entry.enabled = keys.length > 0 || (typeof entry.api_base === 'string' && LOCAL_HOST.test(entry.api_base));
}

/** The default model's provider: named outright, or the legacy `provider/model` form of `model`. */
function defaultModel(defaults: RawObject): { provider?: string; name?: string; model?: string } {
  if (typeof defaults.model !== 'string' || defaults.model === '') return {};
  const name = defaults.model;
  if (typeof defaults.provider === 'string') return { provider: defaults.provider, name, model: name };
  const slash = name.indexOf('/');
  return slash > 0 ? { provider: name.slice(0, slash), name, model: name.slice(slash + 1) } : { name, model: name };
}

function providersToModels(raw: RawObject, notes: string[]): void {
  if (!isRecord(raw.providers)) return;
  const defaults = objectAt(raw, ['agents', 'defaults']);
  const configured = Object.entries(raw.providers).filter(
    (entry): entry is [string, RawObject] =>
      isRecord(entry[1]) &&
      (stringsOf(entry[1].api_key, entry[1].api_keys).length > 0 || typeof entry[1].api_base === 'string'),
  );
  const chosen = defaultModel(defaults);
  const models = Array.isArray(raw.model_list) ? raw.model_list : [];
  for (const [name, provider] of configured) {
    const isDefault = chosen.provider === name || (chosen.provider === undefined && configured.length === 1);
    const entry: RawObject =
      isDefault && chosen.name
        ? { model_name: chosen.name, provider: name, model: chosen.model }
        : { model_name: name, provider: name, model: name };
    if (!isDefault || !chosen.name)
      notes.push(`model_list entry for provider ${name} uses model "${name}"; write the provider's model id there`);
    entry.api_keys = stringsOf(provider.api_keys, provider.api_key);
    if (typeof provider.api_base === 'string') entry.api_base = provider.api_base;
    models.push(entry);
  }
  raw.model_list = models;
  delete raw.providers;
  delete defaults.provider;
  notes.push(`providers became ${configured.length} model_list entr${configured.length === 1 ? 'y' : 'ies'}`);
}

/** `channels.<c>` (flat fields) as `channel_list.<c>` with its fields under `settings`. */
export function channelsToList(raw: RawObject, notes: string[]): void {
  if (!isRecord(raw.channels)) return;
  const list = isRecord(raw.channel_list) ? raw.channel_list : {};
  for (const [name, channel] of Object.entries(raw.channels)) {
    if (!isRecord(channel) || name in list) continue;
    const { enabled, ...settings } = channel;
    list[name] = { enabled: enabled === true, type: name, settings };
  }
  raw.channel_list = list;
  delete raw.channels;
  notes.push('channels became channel_list entries with their fields under settings');
}

function whenOf(match: RawObject): RawObject {
  const when: RawObject = {};
  if (typeof match.channel === 'string') when.channel = match.channel;
  if (typeof match.account_id === 'string') when.account = match.account_id;
  if (isRecord(match.peer) && typeof match.peer.id === 'string')
    when.chat = `${String(match.peer.kind ?? 'direct')}:${match.peer.id}`;
  if (typeof match.guild_id === 'string') when.space = `guild:${match.guild_id}`;
  if (typeof match.team_id === 'string') when.space = `workspace:${match.team_id}`;
  return when;
}

function routingToRules(raw: RawObject, notes: string[]): void {
  const session = isRecord(raw.session) ? raw.session : undefined;
  const scope = session?.dm_scope;
  const dimensions = typeof scope === 'string' ? DM_SCOPE_DIMENSIONS[scope] : undefined;
  if (session && scope !== undefined) {
    delete session.dm_scope;
    if (dimensions) session.dimensions ??= dimensions;
    else notes.push(`session.dm_scope ${JSON.stringify(scope)} is unknown; session.dimensions keeps its default`);
  }
  if (!Array.isArray(raw.bindings)) return;
  const rules = objectAt(raw, ['agents', 'dispatch']);
  const list = Array.isArray(rules.rules) ? rules.rules : [];
  raw.bindings.forEach((binding, i) => {
    if (!isRecord(binding)) return;
    const rule: RawObject = {
      name: `binding-${i + 1}`,
      agent: binding.agent_id ?? binding.agent,
      when: whenOf(isRecord(binding.match) ? binding.match : {}),
    };
    if (dimensions) rule.session_dimensions = dimensions;
    list.push(rule);
  });
  rules.rules = list;
  notes.push(`bindings became ${raw.bindings.length} agents.dispatch.rules`);
  delete raw.bindings;
}

/**
 * Version 0 (`providers`) and version 1 (`model_list` with `api_key`) to version 2. Works on a copy the
 * caller owns; nothing is written here.
 */
export function migrate(raw: RawObject, from: LegacyVersion): Migration {
  const notes: string[] = [];
  providersToModels(raw, notes);
  if (Array.isArray(raw.model_list)) {
    for (const entry of raw.model_list) {
      if (!isRecord(entry)) continue;
      entry.api_keys = stringsOf(entry.api_keys, entry.api_key);
      delete entry.api_key;
      inferEnabled(entry);
    }
  }
  channelsToList(raw, notes);
  routingToRules(raw, notes);
  foldGithubSkills(raw, notes);
  const launcherToken =
    typeof raw.launcher_token === 'string' && raw.launcher_token !== '' ? raw.launcher_token : undefined;
  if ('launcher_token' in raw) {
    delete raw.launcher_token;
    notes.push('launcher_token moved to the credentials file; the launcher turns it into a password login once');
  }
  raw.version = 2;
  notes.unshift(`config migrated from version ${from} to 2`);
  return { raw, notes, ...(launcherToken ? { launcherToken } : {}) };
}
