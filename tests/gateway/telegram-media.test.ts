// image_generate in a gateway turn from Telegram: the drawn image reaches the user as a photo (sendPhoto through the
// Bot API emulator), is saved in the workspace, and the send is recorded in the log with its file.
import { readFileSync } from 'node:fs';
import sharp from 'sharp';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runCliAsync } from '../support/cli.js';
import { startGatewayProcess } from '../support/gateway-process.js';
import { freePort, TelegramEmulator } from '../support/telegram-emulator.js';
import { startUploadFront } from '../support/telegram-uploads.js';
import { completion } from '../support/vendor-chat-completions.js';
import { json, startVendorServer } from '../support/vendor-server.js';

const TOKEN = '444444:media-bot-token-DDDD';

test('image_generate sends the drawn image to the Telegram chat as a photo, then the turn replies', async () => {
  const vendor = await startVendorServer();
  const emulator = await TelegramEmulator.start();
  const front = await startUploadFront(emulator);
  const png = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#0077b6' } })
    .png()
    .toBuffer();
  vendor.reply(
    completion(
      {
        tool_calls: [
          {
            id: 'i1',
            type: 'function',
            function: { name: 'image_generate', arguments: '{"prompt":"a tern over the sea"}' },
          },
        ],
      },
      'tool_calls',
    ),
    json({ created: 1, data: [{ b64_json: png.toString('base64') }] }),
    completion({ content: 'Here it is.' }),
  );
  const gateway = await startGatewayProcess({
    gateway: { host: '127.0.0.1', port: await freePort() },
    agents: { defaults: { model: 'fast', image_model: 'painter' } },
    model_list: [
      {
        model_name: 'fast',
        provider: 'openai',
        model: 'gpt-test',
        api_base: `${vendor.url}/v1`,
        api_keys: ['sk-test-key-0001'],
      },
      {
        model_name: 'painter',
        provider: 'openai',
        model: 'gpt-image-1',
        api_base: `${vendor.url}/v1`,
        api_keys: ['sk-test-key-0001'],
      },
    ],
    heartbeat: { enabled: false },
    channel_list: {
      telegram: {
        enabled: true,
        settings: { token: TOKEN, base_url: front.url, poll_timeout_seconds: 1, allow_from: ['*'] },
      },
    },
  });
  try {
    await emulator.say(TOKEN, 'draw a tern', { userId: 1001 });
    const messages = await emulator.waitForBotMessages(TOKEN, 1001, 2);
    assert.equal(
      messages.map((m) => m.text),
      ['', 'Here it is.'],
    );
    assert.is(front.uploads.length, 1);
    const [photo] = front.uploads;
    assert.equal(
      { ...photo!, bytes: undefined },
      { method: 'sendPhoto', chatId: '1001', filename: photo!.filename, bytes: undefined },
    );
    assert.match(photo!.filename, /^t_[\w-]+-\w+\.png$/);
    assert.equal(photo!.bytes, png);
    assert.equal(
      vendor.requests.map((r) => r.url),
      ['/v1/chat/completions', '/v1/images/generations', '/v1/chat/completions'],
    );

    const log = await runCliAsync(['log', '--type', 'message.sent,tool.completed', '--json'], gateway.home.env);
    const events = log.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; data: Record<string, unknown> });
    const sent = events.find((e) => e.type === 'message.sent' && (e.data.media as unknown[]).length > 0)!;
    const media = sent.data.media as Array<{ kind: string; path: string; mime: string }>;
    assert.equal(
      media.map((m) => [m.kind, m.mime]),
      [['image', 'image/png']],
    );
    assert.ok(media[0]!.path.endsWith(photo!.filename));
    assert.equal(readFileSync(media[0]!.path), png);
    const completed = events.find((e) => e.type === 'tool.completed')!;
    assert.match(
      String(completed.data.content),
      new RegExp(
        /^Saved the image \(\d+ bytes\) to media\/images\/\S+\.png and sent it to telegram:direct:1001\. /.source +
          /\[file:media\/images\/\S+\.png\]$/.source,
      ),
    );
  } finally {
    await gateway.stop();
    await front.close();
    await emulator.stop();
    await vendor.close();
    gateway.home.remove();
  }
});

test.run();
