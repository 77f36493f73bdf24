import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, statSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { type ConfigError, loadConfig, maskedConfig } from '../../store/config/index.js';
import { tempHome } from './home.js';

const V0 = {
  agents: {
    defaults: { workspace: '~/.agent/workspace', provider: 'openai', model: 'gpt-4o', max_tool_iterations: 30 },
  },
  providers: {
    openai: { api_key: 'sk-v0-openai-000000001', api_base: 'https://api.openai.com/v1' },
    anthropic: { api_key: '' },
  },
  channels: {
    telegram: { enabled: true, token: '123456:v0-telegram-token', allow_from: ['42'] },
    slack: { enabled: false, bot_token: 'xoxb-v0-slack-000001', app_token: 'xapp-v0-slack-000001' },
  },
  bindings: [
    { agent_id: 'main', match: { channel: 'telegram', peer: { kind: 'direct', id: '42' } } },
    { agent_id: 'main', match: { channel: 'discord', guild_id: '777' } },
  ],
  session: { dm_scope: 'per-channel-peer' },
  tools: { skills: { github: { token: 'ghp_v0_github_token_01', proxy: 'http://proxy:3128' } } },
  launcher_token: 'launcher-v0-token-0001',
};

const V1 = {
  version: 1,
  agents: { defaults: { model: 'claude' } },
  model_list: [
    { model_name: 'claude', model: 'anthropic/claude-sonnet', api_key: 'sk-ant-v1-0000000001' },
    {
      model_name: 'claude',
      model: 'anthropic/claude-sonnet',
      api_keys: ['sk-ant-v1-0000000002'],
      api_key: 'sk-ant-v1-0000000003',
    },
    { model_name: 'local', model: 'ollama/llama3', api_base: 'http://localhost:11434/v1' },
    { model_name: 'spare', model: 'openai/gpt-5', api_base: 'https://api.openai.com/v1' },
  ],
  channels: { discord: { enabled: true, token: 'discord-v1-token-000001', mention_only: true } },
  tools: { web: { brave: { enabled: true, api_key: 'BSA-v1-brave-000001' } } },
};

function files(dir: string): string[] {
  return readdirSync(dir)
    .filter((f) => f !== 'workspace')
    .sort();
}

const mode = (path: string) => statSync(path).mode & 0o777;

test('version 0 migrates: providers to model_list, channels to channel_list, bindings and dm_scope to rules', () => {
  const h = tempHome();
  h.writeConfig(V0);
  const loaded = loadConfig({ env: h.env });
  const written = JSON.parse(h.read('config.json')) as Record<string, unknown>;
  assert.equal(written, {
    version: 2,
    agents: {
      defaults: { workspace: '~/.agent/workspace', model: 'gpt-4o', max_tool_iterations: 30 },
      dispatch: {
        rules: [
          {
            name: 'binding-1',
            agent: 'main',
            when: { channel: 'telegram', chat: 'direct:42' },
            session_dimensions: ['sender'],
          },
          {
            name: 'binding-2',
            agent: 'main',
            when: { channel: 'discord', space: 'guild:777' },
            session_dimensions: ['sender'],
          },
        ],
      },
    },
    session: { dimensions: ['sender'] },
    tools: { skills: { registries: { github: { proxy: 'http://proxy:3128' } } } },
    model_list: [
      {
        model_name: 'gpt-4o',
        provider: 'openai',
        model: 'gpt-4o',
        api_base: 'https://api.openai.com/v1',
        enabled: true,
      },
    ],
    channel_list: {
      telegram: { enabled: true, type: 'telegram', settings: { allow_from: ['42'] } },
      slack: { enabled: false, type: 'slack', settings: {} },
    },
  });
  assert.is(loaded.launcherToken?.reveal(), 'launcher-v0-token-0001');
  assert.equal(loaded.warnings.slice(0, 2), [
    'config migrated from version 0 to 2',
    'providers became 1 model_list entry',
  ]);
  h.remove();
});

test(
  'migration keeps every secret: moved to .security.yml, ' + 'absent from config.json, present in the loaded config',
  () => {
    const h = tempHome();
    h.writeConfig(V0);
    const { config } = loadConfig({ env: h.env });
    const credentials = parseYaml(h.read('.security.yml')) as Record<string, unknown>;
    assert.equal(credentials, {
      model_list: { 'gpt-4o': { api_keys: ['sk-v0-openai-000000001'] } },
      web: {},
      channel_list: {
        telegram: { token: '123456:v0-telegram-token' },
        // Slack's bot token is the peer's bot_token, read as the token the channel connects with.
        slack: { app_token: 'xapp-v0-slack-000001', token: 'xoxb-v0-slack-000001' },
      },
      skills: { registries: { github: { auth_token: 'ghp_v0_github_token_01' } } },
      launcher_token: 'launcher-v0-token-0001',
    });
    const configText = h.read('config.json');
    for (const secret of ['sk-v0', 'v0-telegram-token', 'xoxb-', 'xapp-', 'ghp_', 'launcher-v0'])
      assert.not.ok(configText.includes(secret), secret);
    assert.equal(
      config.model_list[0]!.api_keys.map((k) => k.reveal()),
      ['sk-v0-openai-000000001'],
    );
    assert.is(config.channel_list.telegram!.settings.token?.reveal(), '123456:v0-telegram-token');
    assert.is(config.tools.skills.registries.github.auth_token.reveal(), 'ghp_v0_github_token_01');
    h.remove();
  },
);

test('version 1 migrates: api_key joins api_keys, enabled is inferred from keys, existing credentials are kept', () => {
  const h = tempHome();
  h.writeConfig(V1);
  h.writeCredentials({
    model_list: { claude: { api_keys: ['sk-ant-held-00000001'] } },
    web: { tavily: { api_key: 'tvly-held-00000001' } },
  });
  const { config } = loadConfig({ env: h.env });
  const written = JSON.parse(h.read('config.json')) as { model_list: unknown[] };
  assert.equal(written.model_list, [
    { model_name: 'claude', model: 'anthropic/claude-sonnet', enabled: true },
    { model_name: 'claude', model: 'anthropic/claude-sonnet', enabled: true },
    { model_name: 'local', model: 'ollama/llama3', api_base: 'http://localhost:11434/v1', enabled: true },
    { model_name: 'spare', model: 'openai/gpt-5', api_base: 'https://api.openai.com/v1', enabled: false },
  ]);
  const credentials = parseYaml(h.read('.security.yml')) as Record<string, unknown>;
  assert.equal(credentials.model_list, {
    claude: {
      api_keys: ['sk-ant-held-00000001', 'sk-ant-v1-0000000001', 'sk-ant-v1-0000000002', 'sk-ant-v1-0000000003'],
    },
  });
  assert.equal(credentials.web, {
    brave: { api_key: 'BSA-v1-brave-000001' },
    tavily: { api_key: 'tvly-held-00000001' },
  });
  assert.equal(credentials.channel_list, { discord: { token: 'discord-v1-token-000001' } });
  assert.is(config.model_list[0]!.api_keys.length, 4);
  assert.is(config.tools.web.brave.api_key?.reveal(), 'BSA-v1-brave-000001');
  assert.is(config.channel_list.discord!.settings.mention_only, true);
  h.remove();
});

test(
  'before rewriting, both files are backed up with a date; ' + 'the rewrite leaves no temp file and is owner-only',
  () => {
    const h = tempHome();
    h.writeConfig(V1);
    h.writeCredentials({ web: { tavily: { api_key: 'tvly-held-00000001' } } });
    const before = { config: h.read('config.json'), credentials: h.read('.security.yml') };
    loadConfig({ env: h.env });
    const names = files(h.home);
    assert.is(names.length, 4);
    const configBackup = names.find((n) => /^config\.json\.bak-\d{8}-\d{6}$/.test(n));
    const credentialsBackup = names.find((n) => /^\.security\.yml\.bak-\d{8}-\d{6}$/.test(n));
    assert.ok(configBackup, names.join(', '));
    assert.ok(credentialsBackup, names.join(', '));
    assert.is(h.read(configBackup!), before.config);
    assert.is(h.read(credentialsBackup!), before.credentials);
    assert.not.ok(names.some((n) => n.includes('.tmp-')));
    for (const name of names) assert.is(mode(h.path(name)), 0o600, name);
    h.remove();
  },
);

test('a migrated file loads as version 2 the next time: no second backup, no migration notes', () => {
  const h = tempHome();
  h.writeConfig(V0);
  const first = maskedConfig(loadConfig({ env: h.env }).config);
  const again = loadConfig({ env: h.env });
  assert.equal(maskedConfig(again.config), first);
  assert.equal(again.warnings, []);
  assert.is(files(h.home).length, 3);
  h.remove();
});

test('read-only loading migrates in memory and leaves the file as it was', () => {
  const h = tempHome();
  h.writeConfig(V1);
  const text = h.read('config.json');
  const loaded = loadConfig({ env: h.env, rewrite: false });
  assert.is(loaded.config.model_list.length, 4);
  assert.is(h.read('config.json'), text);
  assert.equal(files(h.home), ['config.json']);
  h.remove();
});

test('a legacy file that would be invalid after migration is reported and not rewritten', () => {
  const h = tempHome();
  h.writeConfig({ ...V1, heartbeat: { interval: 1 } });
  const text = h.read('config.json');
  try {
    loadConfig({ env: h.env });
    assert.unreachable('loadConfig should throw');
  } catch (error) {
    assert.equal((error as ConfigError).problems, [
      'heartbeat.interval: 1 is too small (allowed: whole numbers 5 or more)',
    ]);
  }
  assert.is(h.read('config.json'), text);
  assert.equal(files(h.home), ['config.json']);
  h.remove();
});

test('version 0 with several providers: the legacy provider/model form picks the default one', () => {
  const h = tempHome();
  h.writeConfig({
    agents: { defaults: { model: 'anthropic/claude-sonnet' } },
    providers: {
      openai: { api_key: 'sk-v0-openai-000000001' },
      anthropic: { api_key: 'sk-v0-anthropic-00001' },
      groq: {},
    },
  });
  const { config, warnings } = loadConfig({ env: h.env });
  assert.equal(
    config.model_list.map((m) => [m.model_name, m.provider, m.model, m.enabled]),
    [
      ['openai', 'openai', 'openai', true],
      ['anthropic/claude-sonnet', 'anthropic', 'claude-sonnet', true],
    ],
  );
  assert.is(config.agents.defaults.model, 'anthropic/claude-sonnet');
  assert.ok(
    warnings.includes('model_list entry for provider openai uses model "openai"; write the provider\'s model id there'),
  );
  h.remove();
});

test('an unknown version is a clear error', () => {
  for (const version of [4, 'two', 1.5]) {
    const h = tempHome();
    h.writeConfig({ version });
    try {
      loadConfig({ env: h.env });
      assert.unreachable('loadConfig should throw');
    } catch (error) {
      assert.is((error as ConfigError).code, 'config_unknown_version');
      assert.equal((error as ConfigError).problems, [
        `version: ${JSON.stringify(version)} is not a config version this build knows (allowed: ` +
          '0, 1, 2, 3). Upgrade tern or fix the number',
      ]);
    }
    h.remove();
  }
});

test.run();
