// One switch streams a channel: `settings.streaming.enabled` on the channel entry is enough, with a model entry that
// says nothing about streaming (the report: streaming needed `model_list[].streaming.enabled` as well).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startGatewayModel } from '../support/gateway-model.js';
import { modelEntry, startGatewayProcess } from '../support/gateway-process.js';
import { freePort, TelegramEmulator } from '../support/telegram-emulator.js';

const STREAMED = '666666:streamed-bot-token-FFFF';
const PLAIN = '777777:plain-bot-token-GGGG';

test(
  'a channel with streaming on streams from a model whose ' + 'entry leaves streaming unset; one without does not',
  async () => {
    const model = await startGatewayModel();
    const emulator = await TelegramEmulator.start();
    const entry = modelEntry(model.url);
    delete entry.streaming;
    const gateway = await startGatewayProcess({
      gateway: { port: await freePort() },
      agents: { defaults: { model: 'fast' } },
      model_list: [entry],
      heartbeat: { enabled: false },
      channel_list: {
        telegram: {
          enabled: true,
          settings: {
            token: STREAMED,
            base_url: emulator.url,
            poll_timeout_seconds: 1,
            allow_from: ['1001'],
            streaming: { enabled: true, throttle_seconds: 0, min_growth_chars: 1 },
          },
        },
        plain: {
          enabled: true,
          type: 'telegram',
          settings: { token: PLAIN, base_url: emulator.url, poll_timeout_seconds: 1, allow_from: ['1001'] },
        },
      },
    });
    try {
      await emulator.say(PLAIN, 'not streamed here', { userId: 1001 });
      assert.equal(
        (await emulator.waitForBotMessages(PLAIN, 1001, 1)).map((m) => m.text),
        ['echo: not streamed here'],
      );
      assert.is(emulator.edits, 0);
      await emulator.say(STREAMED, 'stream these words to me please', { userId: 1001 });
      const deadline = Date.now() + 30_000;
      while (
        emulator.botMessages(STREAMED, 1001)[0]?.text !== 'echo: stream these words to me please' &&
        Date.now() < deadline
      ) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.equal(
        emulator.botMessages(STREAMED, 1001).map((m) => m.text),
        ['echo: stream these words to me please'],
      );
      assert.ok(emulator.edits >= 1, 'the message was created from the first chunk and edited as the others came');
    } finally {
      await gateway.stop();
      gateway.home.remove();
      await emulator.stop();
      await model.close();
    }
  },
);

test.run();
