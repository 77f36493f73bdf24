import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { inspect } from 'node:util';
import { type ConfigError, loadConfig, maskedConfig, Secret } from '../../store/config/index.js';
import { tempHome } from './home.js';

const CONFIG = {
  version: 2,
  model_list: [
    { model_name: 'gpt', model: 'gpt-5', api_keys: ['sk-config-0000000001'] },
    { model_name: 'gpt', model: 'gpt-5', api_base: 'https://eu.example/v1' },
    { model_name: 'local', model: 'llama3', api_base: 'http://127.0.0.1:11434/v1' },
  ],
  channel_list: { telegram: { enabled: true, settings: { token: '111:config-token-aaaa' } }, slack: { enabled: true } },
  tools: {
    web: { brave: { enabled: true, api_key: 'BSA-config-key-000' } },
    skills: { registries: { github: { auth_token: 'ghp_config_token_00' } } },
  },
};

const CREDENTIALS = {
  model_list: { gpt: { api_keys: ['sk-secure-000000001', 'sk-secure-000000002'] } },
  web: { brave: { api_keys: ['BSA-secure-key-001'] }, tavily: { api_key: 'tvly-secure-0000001' } },
  channel_list: { telegram: { token: '222:secure-token-bbbb' } },
  channels: { slack: { bot_token: 'xoxb-secure-000000001', app_token: 'xapp-secure-00000001' } },
  skills: { registries: { clawhub: { auth_token: 'clh_secure_token_01' } }, github: { token: 'ghp_secure_token_01' } },
};

test('precedence: environment over .security.yml over config.json over defaults', () => {
  const h = tempHome({ AGENT_TOOLS_WEB_TAVILY_API_KEY: 'tvly-from-env-00001' });
  h.writeConfig(CONFIG);
  h.writeCredentials(CREDENTIALS);
  const { config, warnings } = loadConfig({ env: h.env });
  const reveal = (keys: Secret[]) => keys.map((k) => k.reveal());
  assert.equal(reveal(config.model_list[0]!.api_keys), ['sk-secure-000000001', 'sk-secure-000000002']);
  assert.equal(reveal(config.model_list[1]!.api_keys), ['sk-secure-000000001', 'sk-secure-000000002']);
  assert.equal(reveal(config.model_list[2]!.api_keys), []);
  assert.is(config.channel_list.telegram!.settings.token?.reveal(), '222:secure-token-bbbb');
  assert.is((config.channel_list.slack!.settings.bot_token as Secret).reveal(), 'xoxb-secure-000000001');
  assert.is((config.channel_list.slack!.settings.app_token as Secret).reveal(), 'xapp-secure-00000001');
  assert.is(config.tools.web.brave.api_key?.reveal(), 'BSA-config-key-000');
  assert.equal(reveal(config.tools.web.brave.api_keys), ['BSA-secure-key-001']);
  assert.is(config.tools.web.tavily.api_key?.reveal(), 'tvly-from-env-00001');
  assert.is(config.tools.skills.registries.clawhub.auth_token.reveal(), 'clh_secure_token_01');
  assert.is(config.tools.skills.registries.github.auth_token.reveal(), 'ghp_secure_token_01');
  assert.equal(warnings, []);
  h.remove();
});

test('without credentials the config file values stand', () => {
  const h = tempHome();
  h.writeConfig(CONFIG);
  const { config } = loadConfig({ env: h.env });
  assert.equal(
    config.model_list[0]!.api_keys.map((k) => k.reveal()),
    ['sk-config-0000000001'],
  );
  assert.is(config.channel_list.telegram!.settings.token?.reveal(), '111:config-token-aaaa');
  assert.is(config.tools.skills.registries.github.auth_token.reveal(), 'ghp_config_token_00');
  h.remove();
});

test('a credentials file readable by others is used, with a warning telling how to fix it', () => {
  const h = tempHome();
  h.writeConfig(CONFIG);
  h.writeCredentials(CREDENTIALS, 0o644);
  const { warnings } = loadConfig({ env: h.env });
  assert.equal(warnings, [
    `${h.path('.security.yml')} is readable by other users (mode 0644); run chmod 600 ${h.path('.security.yml')}`,
  ]);
  h.remove();
});

test('credentials for a model or channel the config does not have are ignored with a warning', () => {
  const h = tempHome();
  h.writeConfig({ version: 2 });
  h.writeCredentials({
    model_list: { ghost: { api_keys: ['sk-ghost-00000001'] } },
    channel_list: { irc: { token: 'x' } },
  });
  assert.equal(loadConfig({ env: h.env }).warnings, [
    '.security.yml: model_list.ghost matches no model_name in the config (ignored)',
    '.security.yml: channel_list.irc matches no channel in the config (ignored)',
  ]);
  h.remove();
});

test('a malformed credentials file is an error naming each field', () => {
  const h = tempHome();
  h.writeConfig({ version: 2 });
  h.writeCredentials({ model_list: { gpt: { api_keys: 'sk-not-a-list' } }, launcher_token: 5 });
  try {
    loadConfig({ env: h.env });
    assert.unreachable('loadConfig should throw');
  } catch (error) {
    assert.is((error as ConfigError).code, 'credentials_invalid');
    assert.equal((error as ConfigError).problems, [
      'model_list.gpt.api_keys: a string is not a list (allowed: a list)',
      'launcher_token: a number is not a string (allowed: a string)',
    ]);
  }
  h.remove();
});

test('secrets print masked in text, JSON, inspect and config show', () => {
  const h = tempHome();
  h.writeConfig(CONFIG);
  h.writeCredentials(CREDENTIALS);
  const { config } = loadConfig({ env: h.env });
  const key = config.model_list[0]!.api_keys[0]!;
  assert.is(`${key}`, 'sk-s…01');
  assert.is(JSON.stringify({ key }), '{"key":"sk-s…01"}');
  assert.is(inspect(key), 'Secret(sk-s…01)');
  const shown = JSON.stringify(maskedConfig(config));
  for (const secret of [
    'sk-secure-000000001',
    '222:secure-token-bbbb',
    'xoxb-secure-000000001',
    'BSA-config-key-000',
    'clh_secure_token_01',
  ]) {
    assert.not.ok(shown.includes(secret), secret);
  }
  assert.ok(shown.includes('"api_keys":["sk-s…01","sk-s…02"]'));
  assert.not.ok(inspect(config, { depth: 20 }).includes('sk-secure'));
  h.remove();
});

test('short secrets mask entirely and empty ones print empty', () => {
  assert.is(String(new Secret('abc123')), '****');
  assert.is(String(new Secret('')), '');
  assert.is(new Secret('abc123').reveal(), 'abc123');
});

test('a secret in an invalid config never appears in the error', () => {
  const h = tempHome();
  h.writeConfig({
    version: 2,
    model_list: [
      { model_name: 'gpt', api_keys: ['sk-leaky-secret-0001'] },
      { model_name: 'o', model: 'o', api_keys: 'sk-leaky-secret-0002' },
    ],
    tools: { web: { brave: { api_key: ['sk-leaky-secret-0003'] } } },
  });
  try {
    loadConfig({ env: h.env });
    assert.unreachable('loadConfig should throw');
  } catch (error) {
    assert.equal((error as ConfigError).problems, [
      'model_list[0].model: is required (allowed: text)',
      'model_list[1].api_keys: a string is not a list (allowed: a list of strings)',
      'tools.web.brave.api_key: a list is not a string (allowed: text)',
    ]);
    assert.not.ok((error as Error).message.includes('sk-leaky'));
  }
  h.remove();
});

test.run();
