import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startGatewayModel, type GatewayModel } from '../support/gateway-model.js';
import { modelEntry, startGatewayProcess, type GatewayProcess } from '../support/gateway-process.js';
import { freePort, TelegramEmulator } from '../support/telegram-emulator.js';
import { quietGateway } from '../support/quiet.js';

const STREAMING = '444444:streaming-bot-token-DDDD';
const PLACEHOLDER = '555555:placeholder-bot-token-EEEE';

interface Context {
  model: GatewayModel;
  emulator: TelegramEmulator;
  gateway: GatewayProcess;
}

const streaming = suite<Context>('tern gateway streaming and placeholders on Telegram');

streaming.before(async (context) => {
  context.model = await startGatewayModel();
  context.emulator = await TelegramEmulator.start();
  context.gateway = await startGatewayProcess({
    gateway: { host: '127.0.0.1', port: await freePort() },
    agents: { defaults: { model: 'fast' } },
    model_list: [modelEntry(context.model.url, true)],
    heartbeat: { enabled: false },
    channel_list: {
      telegram: {
        enabled: true,
        settings: {
          token: STREAMING,
          base_url: context.emulator.url,
          poll_timeout_seconds: 1,
          allow_from: ['*'],
          streaming: { enabled: true, throttle_seconds: 0, min_growth_chars: 1 },
        },
      },
      tg_wait: {
        enabled: true,
        type: 'telegram',
        settings: {
          token: PLACEHOLDER,
          base_url: context.emulator.url,
          poll_timeout_seconds: 1,
          allow_from: ['*'],
          placeholder: 'Thinking…',
        },
      },
    },
  });
});

streaming.after(async (context) => {
  assert.is(await context.gateway.stop(), 0);
  await context.emulator.stop();
  await context.model.close();
  context.gateway.home.remove();
});

streaming('a streamed reply is one message, edited as chunks arrive, ending with the full text', async (context) => {
  const { emulator, gateway } = context;
  await emulator.say(STREAMING, 'stream these words to me please', { userId: 1001 });
  await emulator.waitForBotMessages(STREAMING, 1001, 1);
  const read = () => emulator.botMessages(STREAMING, 1001).map((m) => m.text);
  const texts = await quietGateway(gateway.home.sessions, read);
  assert.equal(texts, ['echo: stream these words to me please']);
  assert.ok(emulator.edits >= 1, 'the message was edited while streaming');
});

streaming('a placeholder is sent first and then replaced by the reply', async ({ emulator, gateway }) => {
  const before = emulator.edits;
  await emulator.say(PLACEHOLDER, 'hello', { userId: 1001 });
  await emulator.waitForBotMessages(PLACEHOLDER, 1001, 1);
  const read = () => ({ texts: emulator.botMessages(PLACEHOLDER, 1001).map((m) => m.text), edits: emulator.edits });
  const shown = await quietGateway(gateway.home.sessions, read);
  assert.equal(shown.texts, ['echo: hello']);
  assert.is(shown.edits, before + 1);
});

streaming.run();
