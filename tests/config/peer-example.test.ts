// The peer runtime's own example config (sipeed/picoclaw config/config.example.json, as fetched on 2026-11-28) loads
// with its settings' meanings; what is still warned about is named here, each with why.
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadConfig } from '../../store/config/index.js';
import { tempHome } from './home.js';

const EXAMPLE = join(import.meta.dirname, 'fixtures', 'peer', 'config.example.json');
const hardware = (path: string, what: string) =>
  `${path} (${what}) is for the peer runtime's hardware boards: Tern has no hardware tools (ignored)`;
const CHANNELS = [
  'telegram',
  'discord',
  'qq',
  'maixcam',
  'whatsapp',
  'feishu',
  'dingtalk',
  'slack',
  'matrix',
  'line',
  'onebot',
  'wecom',
  'irc',
];

test("the peer's example config: its agent, gateway, web and voice settings are read, not warned about", () => {
  const h = tempHome();
  copyFileSync(EXAMPLE, h.path('config.json'));
  const { config, warnings } = loadConfig({ env: h.env });
  h.remove();
  const defaults = config.agents.defaults;
  assert.equal(
    [defaults.context_window, defaults.summarize_message_threshold, defaults.summarize_token_percent],
    [131072, 20, 75],
  );
  assert.equal(
    [defaults.split_on_marker, defaults.tool_feedback],
    [false, { enabled: false, max_args_length: 300, separate_messages: false }],
  );
  assert.is(config.gateway.hot_reload, false);
  assert.equal(
    config.tools.web.perplexity.api_keys.map((k) => k.reveal()),
    ['pplx-xxx'],
  );
  assert.is(config.tools.web.tavily.base_url, undefined, '"" is unset: the default endpoint');
  assert.equal(
    [config.tools.web.sogou.enabled, config.tools.web.gemini.enabled, config.tools.web.gemini.model],
    [true, false, 'gemini-2.5-flash'],
  );
  assert.equal([config.tools.send_tts.enabled, config.voice.echo_transcription], [false, false]);
  assert.equal(config.events.logging, {
    enabled: true,
    include: ['agent.*'],
    exclude: [],
    min_severity: 'info',
    include_payload: false,
  });
  // The peer writes "" for no reasoning chat: unset on every channel, not a chat named "".
  assert.equal(
    CHANNELS.map((name) => config.channel_list[name]?.settings.reasoning_channel_id),
    CHANNELS.map(() => undefined),
  );
  assert.equal(warnings, [
    hardware('tools.i2c', 'I2C bus access'),
    hardware('tools.serial', 'serial port access'),
    hardware('tools.spi', 'SPI bus access'),
    hardware('devices', 'USB device monitoring'),
  ]);
});

test.run();
