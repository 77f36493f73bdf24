import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ConfigError, loadConfig, validateConfig } from '../../store/config/index.js';
import { tern } from './cli-run.js';
import { tempHome } from './home.js';

// Configs written for the peer runtime (Go) lean on its zero values: they load here with its meaning, each
// convention named once as a note, never as a problem.

const FIXTURES = join(import.meta.dirname, 'fixtures', 'peer');
const fixture = (name: string): Record<string, unknown> =>
  JSON.parse(readFileSync(join(FIXTURES, name), 'utf8')) as Record<string, unknown>;
const PEER = "the peer runtime's meaning";

test('the version-3 example shape loads with every zero value read as the peer means it', () => {
  const h = tempHome();
  h.writeConfig(fixture('v3-example.json'));
  const { config, workspace, notes } = loadConfig({ env: h.env });
  assert.equal(
    {
      iterations: config.agents.defaults.max_tool_iterations,
      interval: config.heartbeat.interval,
      port: config.gateway.port,
      level: config.gateway.log_level,
      backups: config.gateway.log_max_backups,
      cronTimeout: config.tools.cron.exec_timeout_minutes,
      provider: config.tools.web.provider,
      braveResults: config.tools.web.brave.max_results,
      kagiBase: config.tools.web.kagi.base_url,
      proxy: config.tools.web.proxy,
      whitelist: config.tools.web.private_host_whitelist,
      readPaths: config.tools.allow_read_paths,
      deny: config.tools.exec.custom_deny_patterns,
      servers: config.tools.mcp.servers,
      dimensions: config.session.dimensions,
      readMode: config.tools.read_file.mode,
      ratio: config.evolution.min_success_ratio,
      filterMin: config.tools.filter_min_length,
      claudeBase: config.model_list[1]!.api_base,
      oauthEnabled: config.model_list[3]!.enabled,
      workspace,
    },
    {
      iterations: 20,
      interval: 30,
      port: 18790,
      level: 'warn',
      backups: 0,
      cronTimeout: 0,
      provider: undefined,
      braveResults: 5,
      kagiBase: 'https://kagi.com/api/v1',
      proxy: undefined,
      whitelist: ['10.0.0.5'],
      readPaths: [],
      deny: [],
      servers: {},
      dimensions: [],
      readMode: 'bytes',
      ratio: 0.7,
      filterMin: 8,
      claudeBase: undefined,
      oauthEnabled: true,
      workspace: join(h.home, 'workspace'),
    },
  );
  const telegram = config.channel_list.telegram!.settings;
  assert.equal(
    [
      telegram.allow_from,
      telegram.placeholder,
      telegram.typing,
      telegram.streaming,
      telegram.token?.reveal(),
      telegram.base_url,
    ],
    [
      ['123456789', 'alice'],
      'Thinking...',
      false,
      { enabled: true, throttle_seconds: 0, min_growth_chars: 1 },
      '123456:fixture-telegram-token',
      undefined,
    ],
  );
  const discord = config.channel_list.discord!.settings;
  assert.equal(
    [discord.allow_from, discord.mention_only, discord.prefixes, discord.token],
    [['42'], true, [], undefined],
  );
  const slack = config.channel_list.slack!.settings;
  assert.equal(
    [slack.token?.reveal(), (slack as Record<string, unknown>).app_token?.toString(), slack.allow_from],
    ['xoxb-fixture-slack-0001', 'xapp…01', []],
  );
  assert.equal(notes, [
    "version 3 is the peer runtime's format: read as version 2, known aliases mapped, unknown keys ignored",
    'channel_list.telegram.allow_from, channel_list.telegram.placeholder, ' +
      'channel_list.telegram.typing, channel_list.telegram.settings, channel_list.discord.allow_from, ' +
      'channel_list.discord.group_trigger, channel_list.discord.settings, channel_list.slack.allow_from, ' +
      'channel_list.slack.settings.bot_token: read into settings (allow_from, mention_only, ' +
      'prefixes, placeholder text, typing, token) as the peer runtime means them',
    `tools.web.provider: "auto" read as the automatic engine choice (provider unset) (${PEER})`,
    'gateway.port, evolution.min_task_count, evolution.min_success_ratio, agents.defaults.max_tool_iterations, ' +
      'heartbeat.interval, channel_list.telegram.settings.streaming.min_growth_chars, tools.filter_min_length, ' +
      'tools.web.fetch_limit_bytes, tools.web.brave.max_results, tools.web.searxng.max_results, ' +
      'tools.mcp.discovery.ttl, tools.mcp.discovery.max_search_results, tools.mcp.max_inline_text_chars, ' +
      `tools.skills.max_concurrent_searches, tools.read_file.max_read_file_size: 0 read as the default (${PEER})`,
    'gateway.log_level, evolution.mode, agents.defaults.workspace, model_list[1].api_base, ' +
      'channel_list.telegram.settings.base_url, channel_list.telegram.settings.proxy, ' +
      'channel_list.discord.settings.token, tools.web.proxy, tools.web.brave.api_key, ' +
      'tools.web.kagi.api_key, tools.web.kagi.base_url, tools.web.searxng.base_url, ' +
      `tools.skills.registries.clawhub.base_url, tools.read_file.mode: "" read as the default (unset) (${PEER})`,
    'evolution.cold_path_times, session.dimensions, channel_list.discord.settings.prefixes, ' +
      'channel_list.slack.settings.allow_from, tools.allow_read_paths, tools.allow_write_paths, ' +
      'tools.web.brave.api_keys, tools.exec.custom_deny_patterns, tools.exec.custom_allow_patterns, ' +
      `tools.cron.command_allowed_remotes: null read as an empty list (${PEER})`,
    `channel_list.telegram.settings.allow_from: numbers in a list of names read as text (${PEER})`,
    'channel_list.discord.settings.allow_from, tools.web.private_host_whitelist: ' +
      `a single value read as a one-item list (${PEER})`,
    `tools.mcp.servers: null read as an empty map (${PEER})`,
  ]);
  h.remove();
});

test(
  'an OAuth entry of antigravity stays on; ' + 'one of a vendor Tern cannot sign in to is switched off, once',
  async () => {
    const h = tempHome();
    const config = fixture('v3-example.json');
    const list = config.model_list as Array<Record<string, unknown>>;
    list.push({ model_name: 'codex-oauth', model: 'openai/gpt-5.2', auth_method: 'oauth' });
    h.writeConfig(config);
    const result = await tern(['config', 'validate', '--json'], h.env);
    const body = JSON.parse(result.stdout) as { ok: boolean; warnings: string[] };
    assert.is(result.code, 0);
    const last = list.length - 1;
    assert.equal(
      body.warnings.filter((w) => w.startsWith('model_list[3]') || w.startsWith(`model_list[${last}]`)),
      [
        `model_list[${last}] (codex-oauth) signs in with auth_method "oauth", which Tern does not do for ` +
          'this provider: the entry is switched off (remove auth_method and give it api_keys to use it)',
      ],
    );
    h.remove();
  },
);

for (const name of ['v3-example.json', 'v2-flat-channels.json', 'v0-providers.json']) {
  const valid = `the peer fixture ${name} is valid`;
  test(`tern config validate: ${valid}, each convention noted once, none as a problem`, async () => {
    const h = tempHome();
    h.writeConfig(fixture(name));
    const result = await tern(['config', 'validate'], h.env);
    assert.is(result.code, 0, result.stdout + result.stderr);
    assert.is(result.stdout, `${h.path('config.json')}: valid\n`);
    const notes = result.stderr.split('\n').filter((line) => line.startsWith('note: '));
    for (const meaning of [
      'null read as an empty list',
      '0 read as the default',
      '"auto" read as the automatic engine choice',
    ]) {
      assert.is(notes.filter((line) => line.includes(meaning)).length, 1, `${meaning} in ${notes.join('\n')}`);
    }
    assert.not.match(result.stderr, /problem/);
    h.remove();
  });
}

test("the peer runtime's version 2 (flat `channels`) is read in memory, never rewritten", () => {
  const h = tempHome();
  h.writeConfig(fixture('v2-flat-channels.json'));
  const before = h.read('config.json');
  const { config, notes } = loadConfig({ env: h.env });
  const telegram = config.channel_list.telegram!;
  assert.equal(
    [
      telegram.enabled,
      telegram.type,
      telegram.settings.token?.reveal(),
      telegram.settings.allow_from,
      telegram.settings.streaming.enabled,
    ],
    [true, 'telegram', '123456:fixture-v2-telegram', ['1001', '1002'], true],
  );
  assert.equal(config.channel_list.onebot!.settings.prefixes, ['!bot']);
  assert.is(notes[0], 'channels became channel_list entries with their fields under settings');
  assert.is(h.read('config.json'), before);
  h.remove();
});

test('a version-0 peer file migrates with its zero values read first', () => {
  const h = tempHome();
  h.writeConfig(fixture('v0-providers.json'));
  const { config } = loadConfig({ env: h.env });
  assert.equal(
    [
      config.model_list[0]!.model_name,
      config.model_list[0]!.api_base,
      config.agents.defaults.max_tool_iterations,
      config.channel_list.discord!.settings.allow_from,
    ],
    ['openrouter/anthropic/claude-sonnet-4.6', undefined, 20, ['77']],
  );
  h.remove();
});

test('list variables split at ASCII and full-width commas, blanks dropped, as the peer runtime reads them', () => {
  const h = tempHome({ AGENT_TOOLS_ALLOW_READ_PATHS: '/srv/a，/srv/b, ,/srv/c,' });
  assert.equal(loadConfig({ env: h.env }).config.tools.allow_read_paths, ['/srv/a', '/srv/b', '/srv/c']);
  h.remove();
});

test('a zero where zero means something keeps its meaning; no note', () => {
  const result = validateConfig({
    version: 2,
    gateway: { log_max_backups: 0 },
    tools: { cron: { exec_timeout_minutes: 0 }, exec: { timeout_seconds: 0 } },
  });
  assert.ok(result.ok);
  if (!result.ok) return;
  assert.equal(
    [result.config.gateway.log_max_backups, result.config.tools.cron.exec_timeout_minutes, result.notes],
    [0, 0, []],
  );
});

test('conventions never hide a real problem', () => {
  const result = validateConfig({
    version: 2,
    agents: { defaults: { max_tool_iterations: -1 } },
    model_list: [
      { model_name: 'm', model: null },
      { model_name: 'k', model: 'k', api_keys: 'sk-single-key-00001' },
    ],
    tools: { allow_read_paths: [null] },
  });
  assert.equal(result.ok ? [] : result.problems, [
    'agents.defaults.max_tool_iterations: -1 is too small (allowed: whole numbers 1 to 1000)',
    'model_list[0].model: null is not a string (allowed: text)',
    'model_list[1].api_keys: a string is not a list (allowed: a list of strings)',
    'tools.allow_read_paths[0]: null is not a string (allowed: text)',
  ]);
});

test('the dashboard path (validateConfig) reads the same peer forms and returns the notes', () => {
  const result = validateConfig(fixture('v2-flat-channels.json'));
  assert.ok(result.ok);
  if (result.ok) assert.is(result.notes.length, 7);
});

test('a config error still names each problem', () => {
  const h = tempHome();
  h.writeConfig({ version: 3, heartbeat: { interval: null, enabled: 'yes' } });
  try {
    loadConfig({ env: h.env });
    assert.unreachable();
  } catch (error) {
    assert.instance(error, ConfigError);
    assert.equal((error as ConfigError).problems, ['heartbeat.enabled: "yes" is not a boolean (allowed: true, false)']);
  }
  h.remove();
});

test.run();
