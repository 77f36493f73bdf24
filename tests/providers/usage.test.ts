// Usage in one shape for the three families: input counts every prompt token (cached ones included), output every
// answer token (reasoning included), with the cached and reasoning shares named apart.
import * as assert from 'uvu/assert';
import { createChatCompletionsClient } from '../../adapters/providers/chat-completions.js';
import { createGenerateContentClient } from '../../adapters/providers/generate-content.js';
import { createMessagesClient } from '../../adapters/providers/messages.js';
import type { ChatRequest } from '../../adapters/providers/provider.js';
import { completion, completionStreamText, sse } from '../support/vendor-chat-completions.js';
import { frame, messageSse } from '../support/vendor-messages.js';
import { json, sseHeaders } from '../support/vendor-server.js';
import { vendorSuite } from '../support/vendor-suite.js';

const { test, server } = vendorSuite('usage of every family');

const request = (stream: boolean): ChatRequest => ({
  model: 'm',
  system: 'Be brief.',
  messages: [{ role: 'user', content: 'ping' }],
  tools: [],
  stream,
});

const chat = () =>
  createChatCompletionsClient({ family: 'chat-completions', apiBase: `${server.url}/v1`, apiKey: 'sk-test-1' });
const messages = () => createMessagesClient({ family: 'messages', apiBase: `${server.url}/v1`, apiKey: 'sk-ant-test' });
const gemini = () =>
  createGenerateContentClient({ family: 'generate-content', apiBase: `${server.url}/v1beta`, apiKey: 'AIza-test' });

const openAiUsage = {
  prompt_tokens: 1200,
  completion_tokens: 300,
  prompt_tokens_details: { cached_tokens: 1024 },
  completion_tokens_details: { reasoning_tokens: 256 },
};

test('chat completions: cached_tokens and reasoning_tokens from the details, answered whole', async () => {
  server.reply(completion({ content: 'pong' }, 'stop', openAiUsage));
  const { usage } = await chat().chat(request(false));
  assert.equal(usage, { input_tokens: 1200, output_tokens: 300, cached_input_tokens: 1024, reasoning_tokens: 256 });
});

test('chat completions: the same from the usage frame of a stream', async () => {
  server.reply(sse([completionStreamText([{ content: 'pong' }], 'stop', openAiUsage)]));
  const { usage } = await chat().chat(request(true));
  assert.equal(usage, { input_tokens: 1200, output_tokens: 300, cached_input_tokens: 1024, reasoning_tokens: 256 });
});

test('chat completions without details: no cached or reasoning share', async () => {
  server.reply(completion({ content: 'pong' }));
  assert.equal((await chat().chat(request(false))).usage, { input_tokens: 12, output_tokens: 5 });
});

test('messages: cache reads and writes join the input, the reads are the cached share (whole answer)', async () => {
  server.reply(
    json({
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'claude-test',
      content: [{ type: 'text', text: 'pong' }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: 20, cache_read_input_tokens: 3000, cache_creation_input_tokens: 500, output_tokens: 40 },
    }),
  );
  assert.equal((await messages().chat(request(false))).usage, {
    input_tokens: 3520,
    output_tokens: 40,
    cached_input_tokens: 3000,
    cache_write_input_tokens: 500,
  });
});

test('messages: the prompt counts of message_start and the output of message_delta (stream)', async () => {
  server.reply(
    messageSse([
      frame('message_start', {
        message: {
          id: 'msg_1',
          type: 'message',
          role: 'assistant',
          content: [],
          usage: { input_tokens: 20, cache_read_input_tokens: 3000, cache_creation_input_tokens: 0, output_tokens: 1 },
        },
      }),
      frame('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
      frame('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'pong' } }),
      frame('content_block_stop', { index: 0 }),
      frame('message_delta', { delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 40, input_tokens: null } }),
      frame('message_stop', {}),
    ]),
  );
  assert.equal((await messages().chat(request(true))).usage, {
    input_tokens: 3020,
    output_tokens: 40,
    cached_input_tokens: 3000,
  });
});

test(
  'generate content: cachedContentTokenCount is the cached share, ' + 'thoughts are reasoning inside the output',
  async () => {
    server.reply(
      json({
        candidates: [{ content: { parts: [{ text: 'pong' }], role: 'model' }, finishReason: 'STOP', index: 0 }],
        usageMetadata: {
          promptTokenCount: 900,
          cachedContentTokenCount: 800,
          candidatesTokenCount: 10,
          thoughtsTokenCount: 90,
          totalTokenCount: 1000,
        },
      }),
    );
    assert.equal((await gemini().chat(request(false))).usage, {
      input_tokens: 900,
      output_tokens: 100,
      cached_input_tokens: 800,
      reasoning_tokens: 90,
    });
  },
);

test('generate content: the same from the last chunk of a stream', async () => {
  const first = { candidates: [{ content: { parts: [{ text: 'po' }], role: 'model' }, index: 0 }] };
  const last = {
    candidates: [{ content: { parts: [{ text: 'ng' }], role: 'model' }, finishReason: 'STOP', index: 0 }],
    usageMetadata: {
      promptTokenCount: 900,
      cachedContentTokenCount: 800,
      candidatesTokenCount: 10,
      thoughtsTokenCount: 90,
    },
  };
  server.reply({
    status: 200,
    headers: sseHeaders,
    chunks: [`data: ${JSON.stringify(first)}\r\n\r\n`, `data: ${JSON.stringify(last)}\r\n\r\n`],
  });
  assert.equal((await gemini().chat(request(true))).usage, {
    input_tokens: 900,
    output_tokens: 100,
    cached_input_tokens: 800,
    reasoning_tokens: 90,
  });
});

test.run();
