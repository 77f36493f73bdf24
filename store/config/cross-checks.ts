import { closestName } from './closest.js';
import { formatPath } from './problems.js';
import { isRecord, type RawObject } from './raw.js';
import { isSecret } from './secret.js';

// Checks across fields, run on the effective raw config (file, credentials and environment merged) whether or not
// its types are right, so one run of `tern config validate` lists these beside every type error. A value of the
// wrong type is left to the schema, which names it; only what is well typed is checked here.

type Problems = string[];

const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const record = (value: unknown): RawObject => (isRecord(value) ? value : {});
const words = (value: unknown): string | undefined =>
  typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;

/** References between blocks: agents, the rules that route to them, and the models they name. */
function references(raw: RawObject, problems: Problems): void {
  const agents = record(raw.agents);
  const entries = list(agents.list).map(record);
  const ids = entries.flatMap((a) => words(a.id) ?? []);
  const defaults = entries.filter((a) => a.default === true);
  if (defaults.length > 1) {
    const named = defaults.map((a) => words(a.id) ?? '?').join(', ');
    problems.push(`agents.list: ${defaults.length} agents are marked default (allowed: at most one; now ${named})`);
  }
  list(record(agents.dispatch).rules).forEach((rule, i) => {
    const agent = words(record(rule).agent);
    if (agent === undefined || ids.length === 0 || ids.includes(agent)) return;
    problems.push(
      `${formatPath(['agents', 'dispatch', 'rules', i, 'agent'])}: ` +
        `${JSON.stringify(agent)} is not an agent in agents.list (allowed: ${ids.join(', ')})`,
    );
  });
  const names = [...new Set(list(raw.model_list).flatMap((m) => words(record(m).model_name) ?? []))];
  const allowed =
    names.length > 0 ? `allowed: ${names.join(', ')}` : 'model_list is empty: add an entry with this model_name';
  const check = (value: unknown, path: Array<string | number>): void => {
    const name = words(value);
    if (name !== undefined && !names.includes(name))
      problems.push(`${formatPath(path)}: ${JSON.stringify(name)} is not a model_name in model_list (${allowed})`);
  };
  /** A `model_name`, or the peer runtime's `{primary, fallbacks}`: every name it holds. */
  const checkAgentModel = (value: unknown, path: Array<string | number>): void => {
    if (typeof value === 'string') return check(value, path);
    const model = record(value);
    check(model.primary, [...path, 'primary']);
    list(model.fallbacks).forEach((name, i) => check(name, [...path, 'fallbacks', i]));
  };
  const defaultsBlock = record(agents.defaults);
  for (const field of ['model', 'transcription_model', 'image_model'] as const)
    check(defaultsBlock[field], ['agents', 'defaults', field]);
  check(record(defaultsBlock.memory).embedding_model, ['agents', 'defaults', 'memory', 'embedding_model']);
  entries.forEach((agent, i) => {
    const id = words(agent.id);
    if (id !== undefined && ids.indexOf(id) !== i) {
      problems.push(
        `${formatPath(['agents', 'list', i, 'id'])}: ${JSON.stringify(id)} ` +
          `is the id of an earlier agent (allowed: a unique id)`,
      );
    }
    checkAgentModel(agent.model, ['agents', 'list', i, 'model']);
    checkAgentModel(record(agent.subagents).model, ['agents', 'list', i, 'subagents', 'model']);
    list(record(agent.subagents).allow_agents).forEach((peer, j) => {
      if (typeof peer !== 'string' || peer === '*' || ids.includes(peer)) return;
      problems.push(
        `${formatPath(['agents', 'list', i, 'subagents', 'allow_agents', j])}: ${JSON.stringify(peer)} ` +
          `is not an agent in agents.list (allowed: *, ${[...new Set(ids)].join(', ')})`,
      );
    });
  });
}

function isAddress(value: string, protocols: readonly string[]): boolean {
  try {
    return protocols.includes(new URL(value).protocol);
  } catch {
    return false;
  }
}

const WEB = ['http:', 'https:'] as const;

/** Addresses the runtime connects to: one that does not parse fails only at the first call, far from its cause. */
function addresses(raw: RawObject, problems: Problems): void {
  const check = (value: unknown, path: Array<string | number>, example: string): void => {
    if (typeof value !== 'string' || value === '' || isAddress(value, WEB)) return;
    problems.push(
      `${formatPath(path)}: ${JSON.stringify(value)} is not an http(s) URL (allowed: an address such as ${example})`,
    );
  };
  list(raw.model_list).forEach((m, i) => {
    // The Copilot CLI's server is a host:port (`localhost:4321`, the peer runtime's form), not a web address.
    const { provider, model } = record(m);
    if (provider === 'github-copilot' || (typeof model === 'string' && model.startsWith('github-copilot/'))) return;
    check(record(m).api_base, ['model_list', i, 'api_base'], 'https://api.openai.com/v1');
  });
  for (const [name, entry] of Object.entries(record(raw.channel_list))) {
    check(
      record(record(entry).settings).base_url,
      ['channel_list', name, 'settings', 'base_url'],
      'https://api.telegram.org',
    );
  }
  const tools = record(raw.tools);
  for (const [name, block] of Object.entries(record(tools.web)))
    check(record(block).base_url, ['tools', 'web', name, 'base_url'], 'http://127.0.0.1:8888');
  for (const [name, server] of Object.entries(record(record(tools.mcp).servers)))
    check(record(server).url, ['tools', 'mcp', 'servers', name, 'url'], 'https://mcp.example.com/mcp');
  for (const [name, registry] of Object.entries(record(record(tools.skills).registries))) {
    check(record(registry).base_url, ['tools', 'skills', 'registries', name, 'base_url'], 'https://clawhub.ai');
  }
}

/** What each channel kind this gateway runs cannot start without. */
const REQUIRED_SETTINGS: Record<string, Array<{ field: string; what: string }>> = {
  telegram: [{ field: 'token', what: 'the bot token from @BotFather' }],
  discord: [{ field: 'token', what: 'the bot token from the Discord developer portal' }],
  slack: [
    { field: 'token', what: 'the bot token, xoxb-…' },
    { field: 'app_token', what: 'the app-level token for Socket Mode, xapp-…' },
  ],
  pico_client: [{ field: 'url', what: 'the ws:// or wss:// address of the Pico server' }],
};

const present = (value: unknown): boolean =>
  isSecret(value) ? value.reveal().trim() !== '' : typeof value === 'string' && value.trim() !== '';

/** The channel kinds Tern runs: the gateway's own, and the dashboard's web chat (`pico`). */
export const CHANNEL_KINDS = [
  'telegram',
  'discord',
  'slack',
  'line',
  'whatsapp',
  'onebot',
  'qq',
  'dingtalk',
  'feishu',
  'wecom',
  'matrix',
  'irc',
  'signal',
  'mattermost',
  'email',
  'pico_client',
  'pico',
] as const;

/** A trusted plugin that is on may add channel kinds, which only loading it tells. */
function pluginsMayAddKinds(raw: RawObject): boolean {
  const plugins = record(raw.plugins);
  if (plugins.enabled === false) return false;
  return Object.values(record(plugins.entries)).some(
    (value) => record(value).enabled !== false && record(value).trusted === true,
  );
}

function channelRequirements(raw: RawObject, problems: Problems): void {
  const pluginKinds = pluginsMayAddKinds(raw);
  for (const [name, value] of Object.entries(record(raw.channel_list))) {
    const entry = record(value);
    if (entry.enabled !== true) continue;
    const kind = words(entry.type) ?? name;
    if (!(CHANNEL_KINDS as readonly string[]).includes(kind) && !pluginKinds) {
      const near = closestName(kind, CHANNEL_KINDS);
      const path = formatPath(['channel_list', name, ...(words(entry.type) ? ['type'] : [])]);
      const what = words(entry.type)
        ? `${JSON.stringify(kind)} is not a channel kind`
        : `the entry's name ${JSON.stringify(kind)} is not a channel kind and it has no type`;
      problems.push(
        `${path}: ${what}${near ? `: did you mean \`${near}\`?` : ''} (allowed: ` +
          `${CHANNEL_KINDS.join(', ')}, or a kind a trusted plugin adds)`,
      );
      continue;
    }
    const settings = record(entry.settings);
    for (const { field, what } of REQUIRED_SETTINGS[kind] ?? []) {
      if (present(settings[field])) continue;
      problems.push(
        `${formatPath(['channel_list', name, 'settings', field])}: is required for an enabled ${kind} ` +
          `channel (allowed: ${what}, in config.json or in .security.yml under channel_list.${name}.${field})`,
      );
    }
  }
}

/** Every cross-field problem of a raw config, each as `path: message (allowed: …)`. */
export function crossFieldProblems(raw: RawObject): string[] {
  const problems: Problems = [];
  references(raw, problems);
  addresses(raw, problems);
  return problems;
}

/**
 * What stops an enabled channel of the effective config from starting (a missing token). The rest of the config is
 * usable without that channel, so these fail `tern config validate` but not a load.
 */
export function channelProblems(raw: RawObject): string[] {
  const problems: Problems = [];
  channelRequirements(raw, problems);
  return problems;
}
