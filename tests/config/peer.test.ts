import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadConfig, validateConfig } from '../../store/config/index.js';
import { tempHome } from './home.js';

/** A config written for the Go runtime the spec describes: extra blocks, its spellings, version 3. */
const PEER = {
  version: 3,
  agents: {
    defaults: { model_name: 'gpt-5', max_tokens: 8192, restrict_to_workspace: true },
    list: [
      { id: 'main', default: true, model_name: 'gpt-5', subagents: { allow_agents: ['helper'] } },
      { id: 'helper' },
    ],
  },
  model_list: [{ model_name: 'gpt-5', model: 'openai/gpt-5', api_key: 'sk-peer-0000000001', rpm: 60 }],
  channel_list: {
    telegram: { enabled: true, type: 'telegram', settings: { token: '1:peer-token-000001', proxy: 'socks5://p' } },
  },
  hooks: { enabled: false, builtins: { audit: { enabled: true } }, defaults: { interceptor_timeout_ms: 3000 } },
  devices: { enabled: false, monitor_usb: true },
  voice: { model_name: 'whisper' },
  events: { sink: 'log' },
  tools: { media_cleanup: { enabled: true }, web: { brave: { enabled: false } } },
};

test('a peer-runtime config loads: aliases map, unknown keys become warnings', () => {
  const h = tempHome();
  h.writeConfig(PEER);
  const { config, warnings, notes } = loadConfig({ env: h.env });
  assert.is(config.version, 2);
  assert.is(config.agents.defaults.model, 'gpt-5');
  assert.is(config.agents.list[0]!.model, 'gpt-5');
  assert.equal(
    config.model_list[0]!.api_keys.map((k) => k.reveal()),
    ['sk-peer-0000000001'],
  );
  assert.is(config.channel_list.telegram!.settings.proxy, 'socks5://p');
  assert.equal(notes, [
    "version 3 is the peer runtime's format: read as version 2, known aliases mapped, unknown keys ignored",
  ]);
  assert.equal(config.hooks.defaults, {
    observer_timeout_ms: 500,
    interceptor_timeout_ms: 3000,
    approval_timeout_ms: 60000,
  });
  // The peer's media cleanup block is Tern's too.
  assert.equal(config.tools.media_cleanup, { enabled: true, max_age_minutes: 10080, interval_minutes: 30 });
  // The peer's max_tokens has its meaning: the longest answer asked of the model.
  assert.is(config.agents.defaults.max_tokens, 8192);
  assert.equal(warnings, [
    'unknown key model_list[0].rpm (ignored)',
    'unknown key hooks.builtins (ignored)',
    "devices (USB device monitoring) is for the peer runtime's hardware boards: Tern has no hardware tools (ignored)",
    'unknown key events.sink (ignored)',
  ]);
  h.remove();
});

test('a peer-runtime config is read, never rewritten', () => {
  const h = tempHome();
  h.writeConfig(PEER);
  const text = h.read('config.json');
  loadConfig({ env: h.env });
  assert.is(h.read('config.json'), text);
  h.remove();
});

test('validateConfig accepts the peer format too and reports real problems in it', () => {
  assert.is(validateConfig(PEER).ok, true);
  const bad = validateConfig({ ...PEER, heartbeat: { interval: 2 } });
  assert.equal(bad.ok ? [] : bad.problems, ['heartbeat.interval: 2 is too small (allowed: whole numbers 5 or more)']);
});

test(
  'tools.skills.github mirroring tools.skills.registries.github, ' + 'as the peer writes both, loads without a warning',
  () => {
    const github = { base_url: 'https://ghe.example', proxy: 'http://127.0.0.1:7891' };
    const h = tempHome();
    h.writeConfig({
      version: 2,
      tools: { skills: { registries: { github: { ...github, auth_token: '' } }, github: { ...github, token: '' } } },
    });
    const { config, warnings } = loadConfig({ env: h.env });
    h.remove();
    assert.equal(
      [config.tools.skills.registries.github.base_url, config.tools.skills.registries.github.proxy],
      ['https://ghe.example', 'http://127.0.0.1:7891'],
    );
    assert.equal(warnings, []);
  },
);

test('deprecated tools.skills.github in a version-2 file still loads, into the registry block, with a warning', () => {
  const h = tempHome();
  h.writeConfig({
    version: 2,
    tools: { skills: { github: { token: 'ghp_legacy_token_0001', base_url: 'https://ghe.example/api/v3' } } },
  });
  const { config, warnings } = loadConfig({ env: h.env });
  assert.is(config.tools.skills.registries.github.auth_token.reveal(), 'ghp_legacy_token_0001');
  assert.is(config.tools.skills.registries.github.base_url, 'https://ghe.example/api/v3');
  assert.equal(warnings, ['tools.skills.github is deprecated; its fields now live in tools.skills.registries.github']);
  h.remove();
});

test.run();
