import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Gateway } from '../../actors/gateway/gateway.js';
import type { Envelope } from '../../bus/index.js';
import { loadConfig } from '../../store/config/index.js';
import { openGatewayLogs, type GatewayLogs } from '../../store/logs/logger.js';
import { passes } from '../support/eventually.js';
import {
  brokenPlugin,
  flakyChannelPlugin,
  idlePlugin,
  shoutPlugin,
  weatherPlugin,
} from '../support/plugin-fixtures.js';
import { freePort, TelegramEmulator } from '../support/telegram-emulator.js';
import { tempHome, type TempHome } from '../support/temp-home.js';
import { completion } from '../support/vendor-chat-completions.js';
import { startVendorServer, type VendorServer } from '../support/vendor-server.js';

const TOKEN = '888:plugin-bot-token-AAAA';
const USER = 1001;

interface Context {
  home: TempHome;
  vendor: VendorServer;
  emulator: TelegramEmulator;
  gateway: Gateway;
  logs: GatewayLogs;
  events: Envelope[];
  dirs: Record<string, string>;
}

const test = suite<Context>('plugin packages in a running gateway');

test.before(async (context) => {
  context.home = tempHome();
  context.vendor = await startVendorServer();
  context.emulator = await TelegramEmulator.start();
  const installed = (name: string) => join(context.home.home, 'plugins', 'node_modules', name);
  context.dirs = {
    weather: weatherPlugin(installed('weather')),
    shout: shoutPlugin(installed('shout')),
    broken: brokenPlugin(join(context.home.home, 'dev', 'broken')),
    off: idlePlugin(installed('off'), 'off'),
    lonely: idlePlugin(installed('lonely'), 'lonely'),
    flaky: flakyChannelPlugin(installed('flaky')),
  };
  writeFileSync(
    join(context.home.home, 'config.json'),
    JSON.stringify({
      version: 2,
      gateway: { port: await freePort() },
      heartbeat: { enabled: false },
      agents: { defaults: { model: 'fast' } },
      model_list: [
        {
          model_name: 'fast',
          provider: 'openai',
          model: 'gpt-test',
          api_base: `${context.vendor.url}/v1`,
          api_keys: ['sk-test-key-0001'],
        },
      ],
      channel_list: {
        telegram: {
          enabled: true,
          settings: { token: TOKEN, base_url: context.emulator.url, poll_timeout_seconds: 1, allow_from: ['*'] },
        },
        flaky: { enabled: true, type: 'flaky-chat', settings: { restart_backoff_ms: 60_000 } },
      },
      plugins: {
        entries: {
          weather: { trusted: true, config: { unit: 'C' } },
          shout: {},
          broken: { trusted: true, path: 'dev/broken' },
          off: { enabled: false },
          flaky: { trusted: true },
        },
      },
    }),
  );
  const loaded = loadConfig({ env: context.home.env });
  context.logs = openGatewayLogs(loaded);
  context.gateway = await Gateway.start({ loaded, env: context.home.env, logs: context.logs });
  context.events = [];
  context.gateway.core.bus.events$.subscribe((event) => context.events.push(event));
});

test.after(async (context) => {
  await context.gateway.stop();
  context.logs.close();
  await context.emulator.stop();
  await context.vendor.close();
  context.home.remove();
});

const states = (events: Envelope[]) =>
  new Map(
    events
      .filter((e): e is Envelope<'plugin.state'> => e.type === 'plugin.state')
      .map((e) => [e.data.plugin, e.data.state]),
  );

test(
  'every plugin reaches its state after /ready; ' + 'a broken one fails with its reason and the gateway stays up',
  async ({ gateway, events }) => {
    await passes(
      () =>
        assert.equal(Object.fromEntries(states(events)), {
          broken: 'failed',
          flaky: 'degraded',
          lonely: 'not enabled',
          off: 'disabled',
          shout: 'ready',
          weather: 'ready',
        }),
      20_000,
    );
    const ready = await fetch(`${gateway.url}/ready`);
    assert.is(ready.status, 200);
  },
);

test('/list plugins in the chat shows all five states with reasons and paths', async ({ emulator, dirs }) => {
  await emulator.say(TOKEN, '/list plugins', { userId: USER });
  const [reply] = await emulator.waitForBotMessages(TOKEN, USER, 1);
  assert.is(
    reply!.text,
    [
      `broken 0.1.0: failed (SyntaxError: missing ) after argument list (index.js:3)) — ${dirs.broken}`,
      `flaky 2.0.0: degraded (channel flaky cannot connect (cannot reach flaky.example)) — ${dirs.flaky}`,
      `lonely 1.0.0: not enabled — ${dirs.lonely}`,
      `off 1.0.0: disabled — ${dirs.off}`,
      `shout 0.3.0: ready — ${dirs.shout}`,
      `weather 1.2.0: ready — ${dirs.weather}`,
    ].join('\n'),
  );
});

test('tools from a trusted and an untrusted plugin run in a real turn; a plugin command answers in the chat', async ({
  emulator,
  vendor,
}) => {
  const call = (id: string, name: string, args: unknown) => ({
    id,
    type: 'function' as const,
    function: { name, arguments: JSON.stringify(args) },
  });
  vendor.reply(
    completion(
      { tool_calls: [call('c1', 'weather_now', { city: 'Oslo' }), call('c2', 'shout', { text: 'hi' })] },
      'tool_calls',
    ),
    completion({ content: 'Sunny and loud.' }),
  );
  await emulator.say(TOKEN, 'weather in Oslo, and shout hi', { userId: USER });
  await emulator.waitForBotMessages(TOKEN, USER, 2);
  const sent = JSON.parse(vendor.requests[0]!.body.toString()) as {
    tools: Array<{ function: { name: string; description: string } }>;
  };
  const offered = sent.tools.map((t) => t.function.name);
  assert.ok(offered.includes('weather_now') && offered.includes('shout'), offered.join(','));
  const messages = (
    JSON.parse(vendor.requests[1]!.body.toString()) as { messages: Array<{ role: string; content: string }> }
  ).messages.filter((m) => m.role === 'tool');
  assert.is(messages[0]!.content, 'sunny, 21 °C in Oslo');
  assert.match(messages[1]!.content, /^HI! \(pid \d+\)$/);
  assert.is.not(
    Number(/pid (\d+)/.exec(messages[1]!.content)![1]),
    process.pid,
    'the untrusted plugin ran in a process of its own',
  );
  assert.is(emulator.botMessages(TOKEN, USER).at(-1)!.text, 'Sunny and loud.');
  await emulator.say(TOKEN, '/shout hello there', { userId: USER });
  await emulator.waitForBotMessages(TOKEN, USER, 3);
  assert.is(emulator.botMessages(TOKEN, USER).at(-1)!.text, 'HELLO THERE!');
});

test.run();
