import { isRecord, objectAt, stringsOf, type RawObject } from './raw.js';

/** Older names that still load in every version: the peer runtime's spellings and deprecated keys. */
export function applyAliases(raw: RawObject, warnings: string[]): void {
  const defaults = isRecord(raw.agents) && isRecord(raw.agents.defaults) ? raw.agents.defaults : undefined;
  if (defaults && typeof defaults.model_name === 'string') {
    defaults.model ??= defaults.model_name;
    delete defaults.model_name;
  }
  // The peer runtime keeps the subagent limits under `subturn`.
  if (defaults && isRecord(defaults.subturn)) {
    defaults.subagents ??= defaults.subturn;
    delete defaults.subturn;
  }
  const agents = isRecord(raw.agents) && Array.isArray(raw.agents.list) ? raw.agents.list : [];
  for (const agent of agents) {
    if (isRecord(agent) && typeof agent.model_name === 'string') {
      agent.model ??= agent.model_name;
      delete agent.model_name;
    }
  }
  foldApiKeys(raw);
  foldRegistryList(raw, warnings);
  foldGithubSkills(raw, warnings);
  foldIsolation(raw, warnings);
  foldWebFetch(raw);
}

/** The peer runtime's `tools.web_fetch` block is `tools.web.fetch` here (which wins when both are set). */
function foldWebFetch(raw: RawObject): void {
  const tools = isRecord(raw.tools) ? raw.tools : undefined;
  if (!tools || !isRecord(tools.web_fetch)) return;
  const fetch = objectAt(raw, ['tools', 'web', 'fetch']);
  for (const [key, value] of Object.entries(tools.web_fetch)) fetch[key] ??= value;
  delete tools.web_fetch;
}

/** The peer runtime's top-level `isolation` block is `tools.exec.isolation` here (which wins when both are set). */
function foldIsolation(raw: RawObject, warnings: string[]): void {
  if (!('isolation' in raw)) return;
  const exec = objectAt(raw, ['tools', 'exec']);
  exec.isolation ??= raw.isolation;
  delete raw.isolation;
  warnings.push(
    'isolation is read as tools.exec.isolation: it isolates exec and cron command ' +
      'jobs (MCP servers and hooks run without it); move it there to silence this',
  );
}

/** `api_key` is the single-key form of `api_keys`; keys are kept in order, first the list, then the single one. */
function foldApiKeys(raw: RawObject): void {
  if (!Array.isArray(raw.model_list)) return;
  for (const entry of raw.model_list) {
    if (!isRecord(entry) || !('api_key' in entry)) continue;
    entry.api_keys = stringsOf(entry.api_keys, entry.api_key);
    delete entry.api_key;
  }
}

/**
 * `tools.skills.registries` may be a list of `{ name, … }` (the peer runtime writes either form): read as the object
 * form keyed by name. An entry without a name cannot be addressed and is dropped with a warning; of two entries with
 * one name, the later wins.
 */
function foldRegistryList(raw: RawObject, warnings: string[]): void {
  const skills = isRecord(raw.tools) && isRecord(raw.tools.skills) ? raw.tools.skills : undefined;
  if (!skills || !Array.isArray(skills.registries)) return;
  const byName: RawObject = {};
  skills.registries.forEach((entry: unknown, index) => {
    const name = isRecord(entry) && typeof entry.name === 'string' ? entry.name.trim() : '';
    if (!isRecord(entry) || name === '') {
      warnings.push(`tools.skills.registries[${index}] has no name (ignored; allowed: an object with a "name")`);
      return;
    }
    if (name in byName)
      warnings.push(`tools.skills.registries[${index}]: a second registry named "${name}" replaces the first`);
    const { name: _name, ...fields } = entry;
    byName[name] = fields;
  });
  skills.registries = byName;
}

/**
 * `tools.skills.github.*` is the older spelling of `tools.skills.registries.github`. The peer runtime writes both, the
 * old one mirroring the new: that needs no warning. Only a field the new block does not already say is worth one.
 */
export function foldGithubSkills(raw: RawObject, warnings: string[]): void {
  const skills = isRecord(raw.tools) && isRecord(raw.tools.skills) ? raw.tools.skills : undefined;
  if (!skills || !isRecord(skills.github)) return;
  const legacy = skills.github;
  const registry = objectAt(skills, ['registries', 'github']);
  let news = false;
  for (const [from, to] of [
    ['token', 'auth_token'],
    ['proxy', 'proxy'],
    ['base_url', 'base_url'],
  ] as const) {
    const value = legacy[from];
    if (value === undefined || value === '' || registry[to] === value) continue;
    news = true;
    registry[to] ??= value;
  }
  delete skills.github;
  if (news) warnings.push('tools.skills.github is deprecated; its fields now live in tools.skills.registries.github');
}
