import { toolsSchema } from './schema/tools/index.js';
import { WEB_UI_CHANNEL_TYPE } from './schema/channel-list.js';
import { leafOptions, type LeafKind } from './leaf-options.js';
import { formatPath } from './problems.js';
import { isRecord, objectAt, type RawObject } from './raw.js';

interface Override {
  path: string[];
  kind: LeafKind;
}

const NAMED: Record<string, Override> = {
  AGENT_LOG_LEVEL: { path: ['gateway', 'log_level'], kind: 'string' },
  AGENT_GATEWAY_LOG_MAX_SIZE_MB: { path: ['gateway', 'log_max_size_mb'], kind: 'int' },
  AGENT_GATEWAY_LOG_MAX_BACKUPS: { path: ['gateway', 'log_max_backups'], kind: 'int' },
  AGENT_HEARTBEAT_ENABLED: { path: ['heartbeat', 'enabled'], kind: 'bool' },
  AGENT_HEARTBEAT_INTERVAL: { path: ['heartbeat', 'interval'], kind: 'int' },
  AGENT_AGENTS_DEFAULTS_RESTRICT_TO_WORKSPACE: { path: ['agents', 'defaults', 'restrict_to_workspace'], kind: 'bool' },
};

const TOOLS_PREFIX = 'AGENT_TOOLS_';

/** `AGENT_TOOLS_<SECTION>_<KEY>` for every scalar tools option, derived from the schema so none is missed. */
const TOOLS: ReadonlyMap<string, Override> = new Map(
  leafOptions(toolsSchema).map(({ path, kind }) => [
    `${TOOLS_PREFIX}${path.join('_').toUpperCase()}`,
    { path: ['tools', ...path], kind },
  ]),
);

const LEGACY_STREAMING = /^AGENT_CHANNELS_(.+)_STREAMING_(ENABLED|THROTTLE_SECONDS|MIN_GROWTH_CHARS)$/;

const TRUE = new Set(['true', '1', 'yes', 'on']);
const FALSE = new Set(['false', '0', 'no', 'off']);

/** Text from the environment as the option's type; what does not convert is passed on for the schema to reject. */
export function convert(value: string, kind: LeafKind): unknown {
  const text = value.trim();
  if (kind === 'bool') {
    if (TRUE.has(text.toLowerCase())) return true;
    if (FALSE.has(text.toLowerCase())) return false;
    return text;
  }
  if (kind === 'int') return /^-?\d+$/.test(text) ? Number(text) : text;
  if (kind === 'list') {
    if (text.startsWith('[')) {
      try {
        return JSON.parse(text) as unknown;
      } catch {
        return text;
      }
    }
    // The peer runtime's lists from the environment: split at ASCII and full-width (Chinese) commas, blanks dropped.
    return text
      .split(/[,\uFF0C]/)
      .map((item) => item.trim())
      .filter((item) => item !== '');
  }
  return value;
}

function set(raw: RawObject, path: string[], value: unknown): void {
  objectAt(raw, path.slice(0, -1))[path.at(-1)!] = value;
}

function applyLegacyStreaming(
  raw: RawObject,
  name: string,
  value: string,
  origins: Map<string, string>,
  warnings: string[],
): void {
  const match = LEGACY_STREAMING.exec(name)!;
  const kind = match[1]!.toLowerCase();
  const field = match[2]!.toLowerCase();
  if (kind === WEB_UI_CHANNEL_TYPE) {
    warnings.push(
      `${name} is ignored: legacy streaming variables never change the web-UI ` +
        `channel (set channel_list.<name>.settings.streaming in the config)`,
    );
    return;
  }
  const channels = isRecord(raw.channel_list) ? raw.channel_list : {};
  const targets = Object.entries(channels).filter(
    ([key, entry]) => isRecord(entry) && (entry.type ?? key) === kind && entry.type !== WEB_UI_CHANNEL_TYPE,
  );
  if (targets.length === 0) warnings.push(`${name} is ignored: no ${kind} channel in channel_list`);
  for (const [key, entry] of targets) {
    set(entry as RawObject, ['settings', 'streaming', field], convert(value, field === 'enabled' ? 'bool' : 'int'));
    origins.set(formatPath(['channel_list', key, 'settings', 'streaming', field]), name);
  }
}

/** Environment variables win over the credentials file and the config file. */
export function applyEnv(
  raw: RawObject,
  env: NodeJS.ProcessEnv,
  origins: Map<string, string>,
  warnings: string[],
): void {
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || !name.startsWith('AGENT_')) continue;
    const override = NAMED[name] ?? TOOLS.get(name);
    if (override) {
      set(raw, override.path, convert(value, override.kind));
      origins.set(formatPath(override.path), name);
    } else if (LEGACY_STREAMING.test(name)) {
      applyLegacyStreaming(raw, name, value, origins, warnings);
    } else if (name.startsWith(TOOLS_PREFIX)) {
      warnings.push(
        `${name} matches no tools option (ignored); map-style options ` +
          `such as tools.mcp.servers are set only in the config file`,
      );
    } else if (name === 'AGENT_LAUNCHER_TOKEN') {
      warnings.push(
        'AGENT_LAUNCHER_TOKEN is no longer supported for dashboard auth (ignored); sign in with the dashboard password',
      );
    }
  }
}
