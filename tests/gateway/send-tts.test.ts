// tools.send_tts and voice.tts_model_name: the model's words spoken by an OpenAI-style `/audio/speech` endpoint (a
// loopback), saved in the workspace and sent to a Telegram chat (Bot API emulator) as a voice message.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { until } from '../support/eventually.js';
import { startGatewayModel } from '../support/gateway-model.js';
import { modelEntry, startGatewayProcess } from '../support/gateway-process.js';
import { quietGateway } from '../support/quiet.js';
import { TelegramBotApi } from '../support/telegram-bot-api.js';
import { freePort } from '../support/telegram-emulator.js';

const OPUS = Buffer.from('OggS\u0000\u0002 spoken bytes');

test('send_tts speaks through the named entry and the chat gets a voice message, then the answer', async () => {
  const asked: Array<{ url: string; auth: string; body: unknown }> = [];
  const speech = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      asked.push({
        url: req.url ?? '',
        auth: String(req.headers.authorization),
        body: JSON.parse(`${Buffer.concat(chunks)}`),
      });
      res.writeHead(200, { 'content-type': 'audio/ogg' }).end(OPUS);
    });
  });
  await new Promise<void>((resolve) => speech.listen(0, '127.0.0.1', resolve));
  const model = await startGatewayModel();
  const telegram = await TelegramBotApi.start();
  const gateway = await startGatewayProcess({
    gateway: { host: '127.0.0.1', port: await freePort() },
    heartbeat: { enabled: false },
    agents: { defaults: { model: 'fast' } },
    model_list: [
      modelEntry(model.url),
      {
        model_name: 'speaker',
        provider: 'openai',
        model: 'gpt-4o-mini-tts',
        api_base: `http://127.0.0.1:${(speech.address() as AddressInfo).port}/v1`,
        api_keys: ['sk-speech-key-0001'],
        extra_body: { voice: 'nova' },
      },
    ],
    voice: { tts_model_name: 'speaker' },
    tools: { send_tts: { enabled: true } },
    channel_list: { telegram: { enabled: true, settings: { ...telegram.settings(), allow_from: ['*'] } } },
  });
  try {
    const chat = telegram.direct('listener');
    await chat.say('SPEAK Good morning, the lights are on.');
    const sent = () => chat.sent().map((m) => m.file?.name ?? m.text);
    await until('the voice and the answer', () => (sent().length >= 2 ? true : undefined), 30_000, sent);
    assert.equal(await quietGateway(gateway.home.sessions, sent), ['reply.ogg', 'spoken']);
    assert.equal(telegram.methods, ['sendVoice', 'sendMessage']);
    assert.equal(chat.sent()[0]!.file!.bytes, OPUS);
    assert.equal(asked, [
      {
        url: '/v1/audio/speech',
        auth: 'Bearer sk-speech-key-0001',
        body: {
          model: 'gpt-4o-mini-tts',
          input: 'Good morning, the lights are on.',
          voice: 'nova',
          response_format: 'opus',
        },
      },
    ]);
    const saved = join(gateway.home.workspace, 'media', 'tts', 'reply.ogg');
    assert.ok(existsSync(saved));
    assert.equal(readFileSync(saved), OPUS);
  } finally {
    await gateway.stop();
    gateway.home.remove();
    await telegram.close();
    await model.close();
    await new Promise<void>((resolve) => speech.close(() => resolve()));
  }
});

test.run();
