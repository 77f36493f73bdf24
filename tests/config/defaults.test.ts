import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { loadConfig, maskedConfig } from '../../store/config/index.js';
import { tempHome } from './home.js';

function at(value: unknown, path: string): unknown {
  return path.split('.').reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], value);
}

const DEFAULTS: [string, unknown][] = [
  ['version', 2],
  ['gateway.host', '127.0.0.1'],
  ['gateway.port', 18790],
  ['gateway.log_level', 'warn'],
  ['gateway.log_max_size_mb', 2],
  ['gateway.log_max_backups', 3],
  ['evolution.enabled', false],
  ['evolution.mode', 'observe'],
  ['evolution.state_dir', ''],
  ['evolution.min_task_count', 2],
  ['evolution.min_success_ratio', 0.7],
  ['evolution.cold_path_trigger', 'after_turn'],
  ['evolution.cold_path_times', []],
  ['agents.defaults.restrict_to_workspace', true],
  ['agents.defaults.model', undefined],
  ['agents.defaults.max_tool_iterations', 20],
  ['agents.defaults.turn_profile', undefined],
  ['agents.defaults.loop_detection', { enabled: false, repeat_threshold: 3, critical_threshold: 6, window_size: 20 }],
  [
    'agents.defaults.subagents',
    { max_depth: 3, max_concurrent: 5, default_timeout_minutes: 5, concurrency_timeout_sec: 30 },
  ],
  ['agents.list', []],
  ['agents.dispatch.rules', []],
  ['session.dimensions', ['chat']],
  ['heartbeat.enabled', true],
  ['heartbeat.interval', 30],
  ['power.low_power', false],
  ['power.low_power_heartbeat_interval', 120],
  ['power.poll_interval_multiplier', 1],
  ['model_list', []],
  ['channel_list', {}],
  ['tools.allow_read_paths', []],
  ['tools.allow_write_paths', []],
  ['tools.filter_sensitive_data', true],
  ['tools.filter_min_length', 8],
  ['tools.search_files.enabled', true],
  ['tools.message.media_enabled', false],
  ['tools.read_file.enabled', true],
  ['tools.read_file.mode', 'bytes'],
  ['tools.read_file.max_read_file_size', 65536],
  ['tools.todo.enabled', true],
  ['tools.spawn.enabled', true],
  ['tools.spawn_status.enabled', true],
  ['tools.subagent.enabled', true],
  ['tools.send_file.enabled', true],
  [
    'tools.exec',
    {
      enabled: true,
      allow_remote: false,
      enable_deny_patterns: true,
      custom_deny_patterns: [],
      custom_allow_patterns: [],
      timeout_seconds: 0,
      require_approval: false,
      isolation: 'auto',
      network: true,
      limits: { processes: 256, memory_mb: 1024, file_size_mb: 1024 },
    },
  ],
  [
    'tools.cron',
    {
      enabled: true,
      allow_command: true,
      command_allowed_remotes: [],
      exec_timeout_minutes: 5,
      require_approval: false,
    },
  ],
  ['tools.web.provider', undefined],
  ['tools.web.prefer_native', true],
  ['tools.web.private_host_whitelist', []],
  ['tools.web.fetch.enabled', true],
  ['tools.web.fetch_limit_bytes', 10485760],
  ['tools.web.format', 'plaintext'],
  ['tools.web.brave', { enabled: false, api_keys: [], max_results: 5 }],
  ['tools.web.duckduckgo', { enabled: true, max_results: 5 }],
  ['tools.web.perplexity', { enabled: false, api_keys: [], model: 'sonar', max_results: 5 }],
  ['tools.web.baidu_search', { enabled: false, base_url: 'https://qianfan.baidubce.com', max_results: 5 }],
  ['tools.web.tavily', { enabled: false, api_keys: [], max_results: 5 }],
  ['tools.web.kagi', { enabled: false, api_keys: [], base_url: 'https://kagi.com/api/v1', max_results: 5 }],
  ['tools.web.keenable', { enabled: false, api_keys: [], base_url: 'https://api.keenable.ai', max_results: 5 }],
  ['tools.web.exa', { enabled: false, max_results: 5 }],
  ['tools.web.searxng', { enabled: false, base_url: 'http://127.0.0.1:8888', max_results: 5 }],
  [
    'tools.web.glm_search',
    {
      enabled: false,
      base_url: 'https://open.bigmodel.cn/api/paas/v4/web_search',
      search_engine: 'search_std',
      max_results: 5,
    },
  ],
  ['tools.mcp.enabled', false],
  ['tools.mcp.discovery', { enabled: false, ttl: 5, max_search_results: 5, use_bm25: true, use_regex: false }],
  ['tools.mcp.servers', {}],
  ['tools.mcp.max_inline_text_chars', 16000],
  ['tools.mcp.require_approval', []],
  ['tools.mcp.connect_timeout_seconds', 10],
  ['tools.write_file', { enabled: true, require_approval: false }],
  ['tools.edit_file', { enabled: true, require_approval: false }],
  ['tools.append_file', { enabled: true, require_approval: false }],
  ['tools.list_dir', { enabled: true, require_approval: false }],
  ['tools.find_skills', { enabled: true, require_approval: false }],
  ['tools.install_skill', { enabled: true, require_approval: false }],
  [
    'hooks',
    {
      enabled: true,
      defaults: { observer_timeout_ms: 500, interceptor_timeout_ms: 5000, approval_timeout_ms: 60000 },
      processes: {},
    },
  ],
  ['plugins', { enabled: true, activate_timeout_ms: 10000, entries: {} }],
  [
    'tools.skills.registries.clawhub',
    {
      enabled: true,
      auth_token: '',
      proxy: '',
      timeout: 0,
      max_zip_size: 0,
      max_response_size: 0,
      base_url: 'https://clawhub.ai',
      search_path: '',
      skills_path: '',
      download_path: '',
    },
  ],
  [
    'tools.skills.registries.github',
    {
      enabled: true,
      auth_token: '',
      proxy: '',
      timeout: 0,
      max_zip_size: 0,
      max_response_size: 0,
      base_url: 'https://api.github.com',
    },
  ],
  ['tools.skills.install_allowed_remotes', []],
  ['tools.skills.max_concurrent_searches', 2],
  ['tools.skills.search_cache', { max_size: 50, ttl_seconds: 300 }],
];

test('a missing config file means every default of the spec, without an error', () => {
  const h = tempHome();
  const loaded = loadConfig({ env: h.env });
  const plain = maskedConfig(loaded.config);
  for (const [path, expected] of DEFAULTS) assert.equal(at(plain, path), expected, path);
  assert.equal(loaded.warnings, []);
  h.remove();
});

test('the workspace defaults to <AGENT_HOME>/workspace and the config file to <AGENT_HOME>/config.json', () => {
  const h = tempHome();
  const loaded = loadConfig({ env: h.env });
  assert.is(loaded.workspace, join(h.home, 'workspace'));
  assert.is(loaded.config.agents.defaults.workspace, join(h.home, 'workspace'));
  assert.is(loaded.path, join(h.home, 'config.json'));
  assert.is(loaded.credentialsPath, join(h.home, '.security.yml'));
  h.remove();
});

test('a model entry gets enabled, empty keys and streaming off by default; a channel its kind from its name', () => {
  const h = tempHome();
  h.writeConfig({ version: 2, model_list: [{ model_name: 'm', model: 'gpt-x' }], channel_list: { telegram: {} } });
  const plain = maskedConfig(loadConfig({ env: h.env }).config);
  assert.equal(at(plain, 'model_list'), [
    { model_name: 'm', model: 'gpt-x', api_keys: [], enabled: true, streaming: { enabled: false } },
  ]);
  assert.equal(at(plain, 'channel_list.telegram'), {
    enabled: false,
    type: 'telegram',
    settings: {
      allow_from: [],
      mention_only: false,
      prefixes: [],
      streaming: { enabled: false, throttle_seconds: 0, min_growth_chars: 1 },
    },
  });
  h.remove();
});

test('a turn profile written as enabled gets default modes for every block', () => {
  const h = tempHome();
  h.writeConfig({ version: 2, agents: { defaults: { turn_profile: { enabled: true } } } });
  const plain = maskedConfig(loadConfig({ env: h.env }).config);
  assert.equal(at(plain, 'agents.defaults.turn_profile'), {
    enabled: true,
    history: { mode: 'default' },
    system_prompt: { mode: 'default' },
    skills: { mode: 'default' },
    tools: { mode: 'default' },
  });
  h.remove();
});

test(
  'every default list and block is a value of its own: ' + 'changing one changes no other field and no later load',
  () => {
    const h = tempHome();
    const first = loadConfig({ env: h.env }).config;
    first.tools.allow_read_paths.push('/srv');
    first.tools.todo.enabled = false;
    first.agents.defaults.turn_profile = {
      enabled: true,
      history: { mode: 'off' },
      system_prompt: { mode: 'default' },
      skills: { mode: 'default' },
      tools: { mode: 'default' },
    };
    assert.equal(first.tools.allow_write_paths, []);
    assert.equal(first.tools.search_files, { enabled: true, require_approval: false });
    const second = loadConfig({ env: h.env }).config;
    assert.equal(second.tools.allow_read_paths, []);
    assert.equal(second.tools.todo, { enabled: true, require_approval: false });
    assert.is(second.agents.defaults.turn_profile, undefined);
    h.remove();
  },
);

test('two blocks of the same shape are filled each on its own', () => {
  const h = tempHome();
  h.writeConfig({
    version: 2,
    agents: { defaults: { turn_profile: { history: { mode: 'off' }, skills: { mode: 'custom', allow: ['a'] } } } },
  });
  const plain = maskedConfig(loadConfig({ env: h.env }).config);
  assert.equal(at(plain, 'agents.defaults.turn_profile'), {
    enabled: false,
    history: { mode: 'off' },
    system_prompt: { mode: 'default' },
    skills: { mode: 'custom', allow: ['a'] },
    tools: { mode: 'default' },
  });
  h.remove();
});

test.run();
