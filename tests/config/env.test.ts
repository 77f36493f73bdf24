import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { type ConfigError, loadConfig, maskedConfig } from '../../store/config/index.js';
import { configPath } from '../../store/paths.js';
import { tempHome } from './home.js';

function at(value: unknown, path: string): unknown {
  return path.split('.').reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], value);
}

function effective(env: Record<string, string>, config: unknown = { version: 2 }) {
  const h = tempHome(env);
  h.writeConfig(config);
  const loaded = loadConfig({ env: h.env });
  h.remove();
  return { plain: maskedConfig(loaded.config), warnings: loaded.warnings };
}

const NAMED: [string, string, string, unknown][] = [
  ['AGENT_LOG_LEVEL', 'debug', 'gateway.log_level', 'debug'],
  ['AGENT_GATEWAY_LOG_MAX_SIZE_MB', '64', 'gateway.log_max_size_mb', 64],
  ['AGENT_GATEWAY_LOG_MAX_BACKUPS', '0', 'gateway.log_max_backups', 0],
  ['AGENT_HEARTBEAT_ENABLED', 'false', 'heartbeat.enabled', false],
  ['AGENT_HEARTBEAT_INTERVAL', '45', 'heartbeat.interval', 45],
  ['AGENT_AGENTS_DEFAULTS_RESTRICT_TO_WORKSPACE', 'false', 'agents.defaults.restrict_to_workspace', false],
];

for (const [name, value, path, expected] of NAMED) {
  test(`${name}=${value} overrides ${path}`, () => {
    assert.equal(
      at(effective({ [name]: value }, { version: 2, gateway: { log_level: 'error' } }).plain, path),
      expected,
    );
  });
}

const GENERIC: [string, string, string, unknown][] = [
  ['AGENT_TOOLS_EXEC_ENABLED', 'false', 'tools.exec.enabled', false],
  ['AGENT_TOOLS_TODO_ENABLED', '0', 'tools.todo.enabled', false],
  ['AGENT_TOOLS_EXEC_ALLOW_REMOTE', 'yes', 'tools.exec.allow_remote', true],
  ['AGENT_TOOLS_READ_FILE_MAX_READ_FILE_SIZE', '1024', 'tools.read_file.max_read_file_size', 1024],
  ['AGENT_TOOLS_READ_FILE_MODE', 'lines', 'tools.read_file.mode', 'lines'],
  ['AGENT_TOOLS_CRON_EXEC_TIMEOUT_MINUTES', '0', 'tools.cron.exec_timeout_minutes', 0],
  ['AGENT_TOOLS_ALLOW_READ_PATHS', '/srv/a, /srv/b', 'tools.allow_read_paths', ['/srv/a', '/srv/b']],
  [
    'AGENT_TOOLS_EXEC_CUSTOM_DENY_PATTERNS',
    '["^curl ", "wget"]',
    'tools.exec.custom_deny_patterns',
    ['^curl ', 'wget'],
  ],
  ['AGENT_TOOLS_WEB_PRIVATE_HOST_WHITELIST', '', 'tools.web.private_host_whitelist', []],
  ['AGENT_TOOLS_WEB_BRAVE_MAX_RESULTS', '8', 'tools.web.brave.max_results', 8],
  ['AGENT_TOOLS_WEB_FETCH_ENABLED', 'false', 'tools.web.fetch.enabled', false],
  ['AGENT_TOOLS_WEB_FETCH_LIMIT_BYTES', '2048', 'tools.web.fetch_limit_bytes', 2048],
  ['AGENT_TOOLS_MCP_DISCOVERY_TTL', '9', 'tools.mcp.discovery.ttl', 9],
  ['AGENT_TOOLS_SKILLS_SEARCH_CACHE_TTL_SECONDS', '60', 'tools.skills.search_cache.ttl_seconds', 60],
  [
    'AGENT_TOOLS_SKILLS_REGISTRIES_GITHUB_PROXY',
    'http://proxy:3128',
    'tools.skills.registries.github.proxy',
    'http://proxy:3128',
  ],
  ['AGENT_TOOLS_FILTER_MIN_LENGTH', '12', 'tools.filter_min_length', 12],
  ['AGENT_TOOLS_MESSAGE_MEDIA_ENABLED', 'true', 'tools.message.media_enabled', true],
];

for (const [name, value, path, expected] of GENERIC) {
  test(`generic ${name}=${JSON.stringify(value)} sets ${path} with its type`, () => {
    assert.equal(at(effective({ [name]: value }).plain, path), expected);
  });
}

test('a generic override that names a secret field is stored as a secret', () => {
  const h = tempHome({ AGENT_TOOLS_WEB_BRAVE_API_KEY: 'BSA-0123456789abcdef' });
  const loaded = loadConfig({ env: h.env });
  assert.is(loaded.config.tools.web.brave.api_key?.reveal(), 'BSA-0123456789abcdef');
  assert.is(String(loaded.config.tools.web.brave.api_key), 'BSA-…ef');
  h.remove();
});

test('an env value of the wrong type is a problem naming the variable and the allowed values', () => {
  const h = tempHome({ AGENT_HEARTBEAT_INTERVAL: 'often', AGENT_TOOLS_EXEC_ENABLED: 'maybe', AGENT_LOG_LEVEL: 'loud' });
  try {
    loadConfig({ env: h.env });
    assert.unreachable('loadConfig should throw');
  } catch (error) {
    assert.equal((error as ConfigError).problems, [
      'gateway.log_level (from AGENT_LOG_LEVEL): "loud" is not allowed (allowed: debug, info, warn, error, fatal)',
      'heartbeat.interval (from AGENT_HEARTBEAT_INTERVAL): ' +
        '"often" is not a whole number (allowed: whole numbers 5 or more)',
      'tools.exec.enabled (from AGENT_TOOLS_EXEC_ENABLED): "maybe" is not a boolean (allowed: true, false)',
    ]);
  }
  h.remove();
});

test('an env range violation is reported like a file one', () => {
  const h = tempHome({ AGENT_GATEWAY_LOG_MAX_SIZE_MB: '2048' });
  try {
    loadConfig({ env: h.env });
    assert.unreachable('loadConfig should throw');
  } catch (error) {
    assert.equal((error as ConfigError).problems, [
      'gateway.log_max_size_mb (from AGENT_GATEWAY_LOG_MAX_SIZE_MB): ' +
        '2048 is too large (allowed: whole numbers 1 to 1024)',
    ]);
  }
  h.remove();
});

test('AGENT_TOOLS_* that matches no option, or addresses a map such as MCP servers, is ignored with a warning', () => {
  const { warnings } = effective({ AGENT_TOOLS_NOPE_ENABLED: 'true', AGENT_TOOLS_MCP_SERVERS_FS_ENABLED: 'true' });
  assert.equal(warnings, [
    'AGENT_TOOLS_NOPE_ENABLED matches no tools option (ignored); ' +
      'map-style options such as tools.mcp.servers are set only in the config file',
    'AGENT_TOOLS_MCP_SERVERS_FS_ENABLED matches no tools option (ignored); ' +
      'map-style options such as tools.mcp.servers are set only in the config file',
  ]);
});

const CHANNELS = {
  version: 2,
  channel_list: {
    telegram: { enabled: true, type: 'telegram' },
    discord: { enabled: true, type: 'discord' },
    pico: {
      enabled: true,
      type: 'pico',
      settings: { streaming: { enabled: true, throttle_seconds: 2, min_growth_chars: 10 } },
    },
  },
};

test('legacy streaming variables change only their own channel', () => {
  const { plain, warnings } = effective(
    {
      AGENT_CHANNELS_TELEGRAM_STREAMING_ENABLED: 'true',
      AGENT_CHANNELS_TELEGRAM_STREAMING_THROTTLE_SECONDS: '3',
      AGENT_CHANNELS_TELEGRAM_STREAMING_MIN_GROWTH_CHARS: '40',
    },
    CHANNELS,
  );
  assert.equal(at(plain, 'channel_list.telegram.settings.streaming'), {
    enabled: true,
    throttle_seconds: 3,
    min_growth_chars: 40,
  });
  assert.equal(at(plain, 'channel_list.discord.settings.streaming'), {
    enabled: false,
    throttle_seconds: 0,
    min_growth_chars: 1,
  });
  assert.equal(at(plain, 'channel_list.pico.settings.streaming'), {
    enabled: true,
    throttle_seconds: 2,
    min_growth_chars: 10,
  });
  assert.equal(warnings, []);
});

test('legacy streaming variables never touch the web-UI channel', () => {
  const { plain, warnings } = effective(
    { AGENT_CHANNELS_PICO_STREAMING_ENABLED: 'false', AGENT_CHANNELS_PICO_STREAMING_THROTTLE_SECONDS: '9' },
    CHANNELS,
  );
  assert.equal(at(plain, 'channel_list.pico.settings.streaming'), {
    enabled: true,
    throttle_seconds: 2,
    min_growth_chars: 10,
  });
  assert.is(warnings.length, 2);
  assert.match(
    warnings[0]!,
    /^AGENT_CHANNELS_PICO_STREAMING_ENABLED is ignored: legacy streaming variables never change the web-UI channel/,
  );
});

test('a legacy streaming variable for a channel that is not configured is ignored with a warning', () => {
  assert.equal(effective({ AGENT_CHANNELS_SLACK_STREAMING_ENABLED: 'true' }, CHANNELS).warnings, [
    'AGENT_CHANNELS_SLACK_STREAMING_ENABLED is ignored: no slack channel in channel_list',
  ]);
});

test('AGENT_CONFIG names the config file; the workspace is read from inside it', () => {
  const h = tempHome();
  h.writeConfig({ version: 2, agents: { defaults: { workspace: join(h.home, 'elsewhere') } } }, 'custom.json');
  const env = { ...h.env, AGENT_CONFIG: h.path('custom.json') };
  const loaded = loadConfig({ env });
  assert.is(loaded.path, h.path('custom.json'));
  assert.is(loaded.workspace, join(h.home, 'elsewhere'));
  h.remove();
});

test('AGENT_HOME moves the default config, credentials and workspace; ~ expands', () => {
  assert.is(configPath({ AGENT_HOME: '~/tern-home' }), join(homedir(), 'tern-home', 'config.json'));
  assert.is(configPath({ AGENT_HOME: '/x', AGENT_CONFIG: '~/c.json' }), join(homedir(), 'c.json'));
  assert.is(configPath({}), join(homedir(), '.agent', 'config.json'));
  const h = tempHome();
  h.writeConfig({ version: 2, agents: { defaults: { workspace: '~/ws' } } });
  assert.is(loadConfig({ env: h.env }).workspace, join(homedir(), 'ws'));
  h.remove();
});

test('AGENT_LOG_FILE and AGENT_BUILTIN_SKILLS are resolved for the runtime; AGENT_LAUNCHER_TOKEN is refused', () => {
  const h = tempHome({
    AGENT_LOG_FILE: '~/tern.log',
    AGENT_BUILTIN_SKILLS: '/opt/skills',
    AGENT_LAUNCHER_TOKEN: 'abc',
  });
  const loaded = loadConfig({ env: h.env });
  assert.is(loaded.logFile, join(homedir(), 'tern.log'));
  assert.is(loaded.builtinSkills, '/opt/skills');
  assert.equal(loaded.warnings, [
    'AGENT_LAUNCHER_TOKEN is no longer supported for dashboard auth (ignored); sign in with the dashboard password',
  ]);
  h.remove();
});

test.run();
