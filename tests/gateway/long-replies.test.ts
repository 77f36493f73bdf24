// A long reply reaches Telegram in parts of at most 4096 characters, each cut after a whole sentence (the report:
// a 6,152-character reply arrived as "…long stre" | "amed answer…").
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startGatewayProcess } from '../support/gateway-process.js';
import { freePort, TelegramEmulator } from '../support/telegram-emulator.js';
import { completion } from '../support/vendor-chat-completions.js';
import { startVendorServer } from '../support/vendor-server.js';

const TOKEN = '444444:long-replies-token-DDDD';

const SENTENCES = Array.from(
  { length: 92 },
  (_, i) => `Sentence ${String(i).padStart(3, '0')} of the long streamed answer goes on for a while here.`,
);

test('a 6,163-character reply arrives in two Telegram messages, cut after the 61st sentence', async () => {
  const vendor = await startVendorServer();
  const emulator = await TelegramEmulator.start();
  vendor.reply(completion({ content: SENTENCES.join(' ') }));
  const gateway = await startGatewayProcess({
    gateway: { port: await freePort() },
    heartbeat: { enabled: false },
    agents: { defaults: { model: 'fast' } },
    model_list: [
      {
        model_name: 'fast',
        provider: 'openai',
        model: 'gpt-test',
        api_base: `${vendor.url}/v1`,
        api_keys: ['sk-test-key-0001'],
      },
    ],
    channel_list: {
      telegram: {
        enabled: true,
        settings: { token: TOKEN, base_url: emulator.url, allow_from: ['1001'], poll_timeout_seconds: 1 },
      },
    },
  });
  try {
    await emulator.say(TOKEN, 'tell me everything', { userId: 1001 });
    const parts = (await emulator.waitForBotMessages(TOKEN, 1001, 2)).map((m) => m.text);
    assert.equal(parts, [SENTENCES.slice(0, 61).join(' '), SENTENCES.slice(61).join(' ')]);
    assert.is(parts[0]!.length, 4086);
  } finally {
    await gateway.stop();
    gateway.home.remove();
    await emulator.stop();
    await vendor.close();
  }
});

test.run();
