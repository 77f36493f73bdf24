import * as assert from 'uvu/assert';
import { vendorSuite } from '../support/vendor-suite.js';
import { ProviderConfigError, ProviderError } from '../../adapters/providers/errors.js';
import { generateImage } from '../../adapters/providers/image-generation.js';
import { transcribe } from '../../adapters/providers/transcription.js';
import { bodyOf, json } from '../support/vendor-server.js';

const { test, server } = vendorSuite('media: transcription and image generation');

const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
const audio = Buffer.from([0x4f, 0x67, 0x67, 0x53, 0x00, 0xff, 0x0d, 0x0a]);

test('audio is sent as multipart to audio/transcriptions and the text comes back', async () => {
  server.reply(json({ text: 'Remind me to buy milk.' }));
  const text = await transcribe(
    {
      model_name: 'stt',
      provider: 'groq',
      model: 'whisper-large-v3',
      api_base: `${server.url}/openai/v1`,
      api_keys: ['gsk-key'],
      extra_body: { language: 'en' },
    },
    audio,
    'voice.ogg',
    'audio/ogg',
  );
  assert.is(text, 'Remind me to buy milk.');
  const request = server.requests[0]!;
  assert.is(request.url, '/openai/v1/audio/transcriptions');
  assert.is(request.headers.authorization, 'Bearer gsk-key');
  const boundary = /^multipart\/form-data; boundary=(.+)$/.exec(request.headers['content-type'] ?? '')?.[1];
  assert.ok(boundary);
  const expected = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="voice.ogg"\r\n` +
        `Content-Type: audio/ogg\r\n\r\n`,
    ),
    audio,
    Buffer.from(`\r\n--${boundary}\r\nContent-Disposition: form-data; name="model"\r\n\r\nwhisper-large-v3\r\n`),
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="language"\r\n\r\nen\r\n--${boundary}--\r\n`),
  ]);
  assert.ok(request.body.equals(expected), request.body.toString('latin1'));
});

test('transcription through a messages-family entry is a config error naming the family', async () => {
  try {
    await transcribe(
      { model_name: 'stt', provider: 'anthropic', model: 'claude', api_keys: ['k'] },
      audio,
      'a.ogg',
      'audio/ogg',
    );
    assert.unreachable('should have thrown');
  } catch (error) {
    assert.ok(error instanceof ProviderConfigError);
    assert.is(
      error.message,
      'model entry stt: transcription needs a chat-completions provider, and "anthropic" speaks messages',
    );
  }
});

test('an image answered as b64_json comes back as bytes with its type', async () => {
  server.reply(
    json({ created: 1_700_000_000, data: [{ b64_json: png.toString('base64'), revised_prompt: 'A red fox in snow' }] }),
  );
  const image = await generateImage(
    {
      model_name: 'img',
      provider: 'openai',
      model: 'gpt-image-1',
      api_base: `${server.url}/v1`,
      api_keys: ['sk-img'],
      extra_body: { size: '1024x1024' },
    },
    'a fox',
  );
  assert.equal(image, { bytes: png, mime: 'image/png', revisedPrompt: 'A red fox in snow' });
  assert.is(server.requests[0]!.url, '/v1/images/generations');
  assert.equal(bodyOf(server.requests[0]), { model: 'gpt-image-1', prompt: 'a fox', n: 1, size: '1024x1024' });
});

test('an image answered as url is downloaded', async () => {
  const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3]);
  server.reply(json({ created: 1, data: [{ url: `${server.url}/files/fox.jpg` }] }), {
    status: 200,
    headers: { 'content-type': 'image/jpeg' },
    chunks: [jpeg],
  });
  const image = await generateImage(
    { model_name: 'img', provider: 'custom', model: 'flux', api_base: `${server.url}/v1` },
    'a fox',
  );
  assert.equal(image, { bytes: jpeg, mime: 'image/jpeg' });
  assert.equal(
    server.requests.map((r) => `${r.method} ${r.url}`),
    ['POST /v1/images/generations', 'GET /files/fox.jpg'],
  );
});

test('a refused image request is an auth failure naming the entry', async () => {
  server.reply(json({ error: { message: 'bad key', type: 'invalid_request_error', code: 'invalid_api_key' } }, 401));
  try {
    await generateImage(
      {
        model_name: 'img',
        provider: 'openai',
        model: 'gpt-image-1',
        api_base: `${server.url}/v1`,
        api_keys: ['sk-img'],
      },
      'x',
    );
    assert.unreachable('should have thrown');
  } catch (error) {
    assert.ok(error instanceof ProviderError);
    assert.equal([error.code, error.modelName, error.message], ['auth', 'img', 'model entry img: HTTP 401: bad key']);
  }
});

test.run();
