import { mkdirSync, writeFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ConfigError, loadConfig, validateConfig } from '../../store/config/index.js';
import { tempHome } from './home.js';

const CASES: [string, unknown, string][] = [
  [
    'log_max_size_mb below 1',
    { gateway: { log_max_size_mb: -1 } },
    'gateway.log_max_size_mb: -1 is too small (allowed: whole numbers 1 to 1024)',
  ],
  [
    'log_max_size_mb above 1024',
    { gateway: { log_max_size_mb: 1025 } },
    'gateway.log_max_size_mb: 1025 is too large (allowed: whole numbers 1 to 1024)',
  ],
  [
    'log_max_size_mb not whole',
    { gateway: { log_max_size_mb: 1.5 } },
    'gateway.log_max_size_mb: 1.5 is not a whole number (allowed: whole numbers 1 to 1024)',
  ],
  [
    'log_max_backups below 0',
    { gateway: { log_max_backups: -1 } },
    'gateway.log_max_backups: -1 is too small (allowed: whole numbers 0 to 100)',
  ],
  [
    'log_max_backups above 100',
    { gateway: { log_max_backups: 101 } },
    'gateway.log_max_backups: 101 is too large (allowed: whole numbers 0 to 100)',
  ],
  [
    'log_level unknown',
    { gateway: { log_level: 'verbose' } },
    'gateway.log_level: "verbose" is not allowed (allowed: debug, info, warn, error, fatal)',
  ],
  [
    'gateway port',
    { gateway: { port: 70000 } },
    'gateway.port: 70000 is too large (allowed: whole numbers 1 to 65535)',
  ],
  [
    'heartbeat interval below 5',
    { heartbeat: { interval: 4 } },
    'heartbeat.interval: 4 is too small (allowed: whole numbers 5 or more)',
  ],
  [
    'heartbeat interval as text',
    { heartbeat: { interval: 'often' } },
    'heartbeat.interval: "often" is not a whole number (allowed: whole numbers 5 or more)',
  ],
  [
    'heartbeat interval as an object',
    { heartbeat: { interval: { minutes: 5 } } },
    'heartbeat.interval: an object is not a whole number (allowed: whole numbers 5 or more)',
  ],
  [
    'heartbeat enabled as text',
    { heartbeat: { enabled: 'yes' } },
    'heartbeat.enabled: "yes" is not a boolean (allowed: true, false)',
  ],
  [
    'min_success_ratio below 0',
    { evolution: { min_success_ratio: -0.5 } },
    'evolution.min_success_ratio: -0.5 is out of range (allowed: greater than 0, at most 1)',
  ],
  [
    'min_success_ratio above 1',
    { evolution: { min_success_ratio: 1.2 } },
    'evolution.min_success_ratio: 1.2 is out of range (allowed: greater than 0, at most 1)',
  ],
  [
    'evolution mode',
    { evolution: { mode: 'auto' } },
    'evolution.mode: "auto" is not allowed (allowed: observe, draft, apply)',
  ],
  [
    'cold path trigger',
    { evolution: { cold_path_trigger: 'hourly' } },
    'evolution.cold_path_trigger: "hourly" is not allowed (allowed: after_turn, scheduled, manual)',
  ],
  [
    'cold path time',
    { evolution: { cold_path_times: ['03:00', '24:00'] } },
    'evolution.cold_path_times[1]: "24:00" is not a time (allowed: HH:MM from 00:00 to 23:59)',
  ],
  [
    'cold path time without colon',
    { evolution: { cold_path_times: ['0300'] } },
    'evolution.cold_path_times[0]: "0300" is not a time (allowed: HH:MM from 00:00 to 23:59)',
  ],
  [
    'session dimension',
    { session: { dimensions: ['chat', 'peer'] } },
    'session.dimensions[1]: "peer" is not allowed (allowed: space, chat, topic, sender)',
  ],
  [
    'rule session dimension',
    { agents: { dispatch: { rules: [{ name: 'r', agent: 'a', session_dimensions: ['thread'] }] } } },
    'agents.dispatch.rules[0].session_dimensions[0]: "thread" is not allowed (allowed: space, chat, topic, sender)',
  ],
  [
    'exec processes below 16',
    { tools: { exec: { limits: { processes: 8 } } } },
    'tools.exec.limits.processes: 8 is too small (allowed: whole numbers 16 to 65536)',
  ],
  [
    'exec memory as text',
    { tools: { exec: { limits: { memory_mb: '1G' } } } },
    'tools.exec.limits.memory_mb: "1G" is not a whole number (allowed: whole numbers 64 to 1048576)',
  ],
  [
    'exec file size below 1',
    { tools: { exec: { limits: { file_size_mb: -1 } } } },
    'tools.exec.limits.file_size_mb: -1 is too small (allowed: whole numbers 1 to 1048576)',
  ],
  [
    'max_tool_iterations 1001',
    { agents: { defaults: { max_tool_iterations: 1001 } } },
    'agents.defaults.max_tool_iterations: 1001 is too large (allowed: whole numbers 1 to 1000)',
  ],
  [
    'turn profile custom history',
    { agents: { defaults: { turn_profile: { enabled: true, history: { mode: 'custom' } } } } },
    'agents.defaults.turn_profile.history.mode: ' +
      'mode custom is supported only for skills and tools (allowed: default, off)',
  ],
  [
    'turn profile custom system prompt',
    { agents: { defaults: { turn_profile: { system_prompt: { mode: 'custom' } } } } },
    'agents.defaults.turn_profile.system_prompt.mode: ' +
      'mode custom is supported only for skills and tools (allowed: default, off)',
  ],
  [
    'loop window shorter than critical threshold',
    { agents: { defaults: { loop_detection: { enabled: true, window_size: 4 } } } },
    'agents.defaults.loop_detection.window_size: 4 does not cover critical_threshold (allowed: whole numbers from 6)',
  ],
  [
    'loop critical not above repeat',
    { agents: { defaults: { loop_detection: { repeat_threshold: 5, critical_threshold: 5 } } } },
    'agents.defaults.loop_detection.critical_threshold: ' +
      '5 must be above repeat_threshold (allowed: whole numbers from 6)',
  ],
  [
    'read_file mode',
    { tools: { read_file: { mode: 'pages' } } },
    'tools.read_file.mode: "pages" is not allowed (allowed: bytes, lines)',
  ],
  [
    'web format',
    { tools: { web: { format: 'html' } } },
    'tools.web.format: "html" is not allowed (allowed: plaintext, markdown)',
  ],
  [
    'web provider',
    { tools: { web: { provider: 'bing' } } },
    'tools.web.provider: "bing" is not allowed (allowed: brave, duckduckgo, perplexity, ' +
      'baidu_search, tavily, kagi, keenable, exa, searxng, glm_search, gemini, sogou)',
  ],
  [
    'exec deny pattern',
    { tools: { exec: { custom_deny_patterns: ['rm (-rf'] } } },
    'tools.exec.custom_deny_patterns[0]: ' +
      '"rm (-rf" is not a valid regular expression (allowed: JavaScript RegExp syntax)',
  ],
  [
    'cron timeout',
    { tools: { cron: { exec_timeout_minutes: -1 } } },
    'tools.cron.exec_timeout_minutes: -1 is too small (allowed: whole numbers 0 or more)',
  ],
  [
    'cron remote',
    { tools: { cron: { command_allowed_remotes: ['tele gram'] } } },
    'tools.cron.command_allowed_remotes[0]: "tele gram" is not a remote (allowed: <channel>, <channel>:<chat_id>, *)',
  ],
  [
    'mcp discovery without a search',
    { tools: { mcp: { discovery: { enabled: true, use_bm25: false, use_regex: false } } } },
    'tools.mcp.discovery.enabled: discovery needs a search tool but use_bm25 ' +
      'and use_regex are both false (allowed: use_bm25 or use_regex true)',
  ],
  [
    'mcp oauth with an Authorization header',
    {
      tools: {
        mcp: {
          servers: {
            remote: {
              enabled: true,
              type: 'http',
              url: 'https://mcp.example/mcp',
              headers: { Authorization: 'Bearer abcdefghijklmnop' },
              oauth: {},
            },
          },
        },
      },
    },
    'tools.mcp.servers.remote.oauth: cannot be combined with an Authorization header (allowed: ' +
      'oauth or headers.Authorization, not both)',
  ],
  [
    'mcp stdio without command',
    { tools: { mcp: { servers: { fs: { enabled: true } } } } },
    'tools.mcp.servers.fs.command: is required for a stdio server (allowed: an executable name or path)',
  ],
  [
    'mcp sse without url',
    { tools: { mcp: { servers: { s: { enabled: true, type: 'sse' } } } } },
    'tools.mcp.servers.s.url: is required for a sse server (allowed: an http(s) URL)',
  ],
  [
    'mcp server type',
    { tools: { mcp: { servers: { s: { enabled: true, type: 'ws', url: 'https://mcp.example/mcp' } } } } },
    'tools.mcp.servers.s.type: "ws" is not allowed (allowed: stdio, sse, http)',
  ],
  [
    'mcp server enabled missing',
    { tools: { mcp: { servers: { s: { command: 'x' } } } } },
    'tools.mcp.servers.s.enabled: is required (allowed: true, false)',
  ],
  ['model without model', { model_list: [{ model_name: 'm' }] }, 'model_list[0].model: is required (allowed: text)'],
  [
    'model key not text',
    { model_list: [{ model_name: 'm', model: 'x', api_keys: [42] }] },
    'model_list[0].api_keys[0]: a number is not a string (allowed: text)',
  ],
  ['a block of the wrong kind', { gateway: 'fast' }, 'gateway: "fast" is not an object (allowed: an object)'],
  ['a list where an object is due', { channel_list: [] }, 'channel_list: a list is not an object (allowed: an object)'],
  [
    'two default agents',
    {
      agents: {
        list: [
          { id: 'a', default: true },
          { id: 'b', default: true },
        ],
      },
    },
    'agents.list: 2 agents are marked default (allowed: at most one; now a, b)',
  ],
  [
    'a rule for an unknown agent',
    { agents: { list: [{ id: 'main' }], dispatch: { rules: [{ name: 'r', agent: 'helper' }] } } },
    'agents.dispatch.rules[0].agent: "helper" is not an agent in agents.list (allowed: main)',
  ],
  [
    'a default model missing from model_list',
    { agents: { defaults: { model: 'gpt' } }, model_list: [{ model_name: 'claude', model: 'claude-x' }] },
    'agents.defaults.model: "gpt" is not a model_name in model_list (allowed: claude)',
  ],
];

for (const [name, config, problem] of CASES) {
  test(`invalid: ${name}`, () => {
    const result = validateConfig({ version: 2, ...(config as object) });
    assert.equal(result.ok ? [] : result.problems, [problem]);
  });
}

test('every problem in a file is reported at once, each naming its path', () => {
  const h = tempHome();
  h.writeConfig({
    version: 2,
    gateway: { log_max_size_mb: -1, log_max_backups: 101 },
    heartbeat: { interval: 1 },
    session: { dimensions: ['peer'] },
    agents: { defaults: { model: 'fsat' } },
    model_list: [{ model_name: 'fast', model: 'gpt-5', api_base: 'not a url' }],
    channel_list: { telegram: { enabled: true } },
  });
  try {
    loadConfig({ env: h.env });
    assert.unreachable('loadConfig should throw');
  } catch (error) {
    assert.instance(error, ConfigError);
    assert.is((error as ConfigError).code, 'config_invalid');
    assert.equal((error as ConfigError).problems, [
      'gateway.log_max_size_mb: -1 is too small (allowed: whole numbers 1 to 1024)',
      'gateway.log_max_backups: 101 is too large (allowed: whole numbers 0 to 100)',
      'session.dimensions[0]: "peer" is not allowed (allowed: space, chat, topic, sender)',
      'heartbeat.interval: 1 is too small (allowed: whole numbers 5 or more)',
      'agents.defaults.model: "fsat" is not a model_name in model_list (allowed: fast)',
      'model_list[0].api_base: "not a url" is not an http(s) URL (allowed: ' +
        'an address such as https://api.openai.com/v1)',
      'channel_list.telegram.settings.token: is required for an enabled telegram channel (allowed: ' +
        'the bot token from @BotFather, in config.json or in .security.yml under channel_list.telegram.token)',
    ]);
  }
  h.remove();
});

test('values at the edges of their ranges are accepted', () => {
  const result = validateConfig({
    version: 2,
    gateway: { log_max_size_mb: 1024, log_max_backups: 0 },
    heartbeat: { interval: 5 },
    evolution: { min_success_ratio: 1, cold_path_times: ['00:00', '23:59'] },
    agents: {
      defaults: {
        max_tool_iterations: 1000,
        turn_profile: {
          skills: { mode: 'custom', custom: { allow: ['weather'] } },
          tools: { mode: 'custom', allow: ['todo'] },
        },
      },
    },
    tools: { mcp: { discovery: { enabled: true, use_bm25: false, use_regex: true } } },
  });
  assert.is(result.ok, true);
});

test('a file that is not JSON is an error naming the file', () => {
  const h = tempHome();
  writeFileSync(h.path('config.json'), '{ "version": 2, ');
  try {
    loadConfig({ env: h.env });
    assert.unreachable('loadConfig should throw');
  } catch (error) {
    assert.is((error as ConfigError).code, 'config_unreadable');
    assert.match((error as ConfigError).problems[0]!, /^\(file\): not valid JSON/);
  }
  h.remove();
});

test('a config path that is a directory is an error naming the file, not a crash', () => {
  const h = tempHome();
  mkdirSync(h.path('config.json'));
  try {
    loadConfig({ env: h.env });
    assert.unreachable('loadConfig should throw');
  } catch (error) {
    assert.is((error as ConfigError).code, 'config_unreadable');
    assert.equal((error as ConfigError).problems, ['(file): cannot be read (EISDIR)']);
  }
  h.remove();
});

test.run();
