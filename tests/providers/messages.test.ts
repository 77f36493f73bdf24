import * as assert from 'uvu/assert';
import { vendorSuite } from '../support/vendor-suite.js';
import { createMessagesClient } from '../../adapters/providers/messages.js';
import type { ChatRequest, StreamChunk } from '../../adapters/providers/provider.js';
import { frame, message, messageSse, messageStreamText } from '../support/vendor-messages.js';
import { bodyOf, splitBytes } from '../support/vendor-server.js';

const { test, server } = vendorSuite('messages family');

const weather = {
  name: 'get_weather',
  description: 'Weather for a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } } },
};

const toolTurn: ChatRequest = {
  model: 'claude-test',
  system: 'You are terse.',
  messages: [
    { role: 'user', content: 'Weather in Paris and Rome?' },
    {
      role: 'assistant',
      content: 'Checking.',
      reasoning: 'Two cities.',
      reasoning_signature: 'sig-1',
      tool_calls: [
        { id: 'toolu_1', name: 'get_weather', arguments: { city: 'Paris' } },
        { id: 'toolu_2', name: 'get_weather', arguments: { city: 'Rome' } },
      ],
    },
    { role: 'tool', tool_call_id: 'toolu_1', name: 'get_weather', content: '18°C' },
    { role: 'tool', tool_call_id: 'toolu_2', name: 'get_weather', content: '24°C' },
  ],
  tools: [weather],
  stream: false,
};

const client = () => createMessagesClient({ family: 'messages', apiBase: `${server.url}/v1`, apiKey: 'sk-ant-test' });

test('a tool round trip is sent as content blocks with tool_result in one user message', async () => {
  server.reply(message([{ type: 'text', text: 'Paris 18°C, Rome 24°C.' }]));
  const response = await client().chat(toolTurn);
  assert.equal(response, {
    text: 'Paris 18°C, Rome 24°C.',
    tool_calls: [],
    usage: { input_tokens: 25, output_tokens: 9 },
    finish_reason: 'end_turn',
  });
  const request = server.requests[0]!;
  assert.is(request.url, '/v1/messages');
  assert.is(request.headers['x-api-key'], 'sk-ant-test');
  assert.is(request.headers['anthropic-version'], '2023-06-01');
  assert.is(request.headers.authorization, undefined);
  assert.equal(bodyOf(request), {
    model: 'claude-test',
    max_tokens: 4096,
    system: [{ type: 'text', text: 'You are terse.', cache_control: { type: 'ephemeral' } }],
    messages: [
      { role: 'user', content: 'Weather in Paris and Rome?' },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'Two cities.', signature: 'sig-1' },
          { type: 'text', text: 'Checking.' },
          { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } },
          { type: 'tool_use', id: 'toolu_2', name: 'get_weather', input: { city: 'Rome' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_1', content: '18°C' },
          { type: 'tool_result', tool_use_id: 'toolu_2', content: '24°C', cache_control: { type: 'ephemeral' } },
        ],
      },
    ],
    tools: [
      {
        name: 'get_weather',
        description: 'Weather for a city',
        input_schema: weather.parameters,
        cache_control: { type: 'ephemeral' },
      },
    ],
  });
});

test('a non-streamed answer keeps thinking apart and returns tool_use blocks as tool calls', async () => {
  server.reply(
    message(
      [
        { type: 'thinking', thinking: 'Need the weather.', signature: 'sig-9' },
        { type: 'tool_use', id: 'toolu_9', name: 'get_weather', input: { city: 'Oslo' } },
      ],
      'tool_use',
    ),
  );
  const response = await client().chat(toolTurn);
  assert.equal(response, {
    text: '',
    reasoning: 'Need the weather.',
    reasoning_signature: 'sig-9',
    tool_calls: [{ id: 'toolu_9', name: 'get_weather', arguments: { city: 'Oslo' } }],
    usage: { input_tokens: 25, output_tokens: 9 },
    finish_reason: 'tool_use',
  });
});

const streamed = messageStreamText(
  [
    { type: 'thinking', thinking: 'Look it up.', signature: 'sig-s' },
    { type: 'text', text: 'Let me check the weather.' },
    { type: 'tool_use', id: 'toolu_a', name: 'get_weather', input: { city: 'Zürich', units: 'metric' } },
  ],
  'tool_use',
  { input_tokens: 40, output_tokens: 33 },
  4,
);

for (const size of [1, 5, 100_000]) {
  test(`a streamed answer with input_json_delta fragments is assembled from pieces of ${size} bytes`, async () => {
    server.reply(messageSse(splitBytes(streamed, size)));
    const chunks: StreamChunk[] = [];
    const response = await client().chat({ ...toolTurn, stream: true }, { onChunk: (c) => chunks.push(c) });
    assert.equal(response, {
      text: 'Let me check the weather.',
      reasoning: 'Look it up.',
      reasoning_signature: 'sig-s',
      tool_calls: [{ id: 'toolu_a', name: 'get_weather', arguments: { city: 'Zürich', units: 'metric' } }],
      usage: { input_tokens: 40, output_tokens: 33 },
      finish_reason: 'tool_use',
    });
    assert.equal(chunks, [
      { kind: 'reasoning', delta: 'Look it up.' },
      { kind: 'text', delta: 'Let ' },
      { kind: 'text', delta: 'me ' },
      { kind: 'text', delta: 'check ' },
      { kind: 'text', delta: 'the ' },
      { kind: 'text', delta: 'weather.' },
    ]);
    assert.is((bodyOf(server.requests[0]) as Record<string, unknown>).stream, true);
  });
}

test('an error event in the stream is a typed failure', async () => {
  server.reply(
    messageSse([
      frame('message_start', { message: { usage: { input_tokens: 3, output_tokens: 1 } } }),
      frame('error', { error: { type: 'overloaded_error', message: 'Overloaded' } }),
    ]),
  );
  try {
    await client().chat({ ...toolTurn, stream: true });
    assert.unreachable('should have failed');
  } catch (error) {
    assert.is((error as { code?: string }).code, 'overloaded');
  }
});

test('unknown event types are skipped', async () => {
  const text = messageStreamText([{ type: 'text', text: 'Hi' }]);
  server.reply(messageSse([frame('future_event', { stuff: 1 }), text]));
  const response = await client().chat({ ...toolTurn, stream: true });
  assert.is(response.text, 'Hi');
});

test('system messages in the history join the top-level system field', async () => {
  server.reply(message([{ type: 'text', text: 'ok' }]));
  await client().chat({
    model: 'claude-test',
    system: 'Base.',
    messages: [
      { role: 'system', content: 'Summary: none.' },
      { role: 'user', content: 'hi' },
    ],
    tools: [],
    stream: false,
    maxTokens: 100,
    extraBody: { temperature: 0 },
  });
  assert.equal(bodyOf(server.requests[0]), {
    model: 'claude-test',
    max_tokens: 100,
    system: [{ type: 'text', text: 'Base.\n\nSummary: none.', cache_control: { type: 'ephemeral' } }],
    messages: [{ role: 'user', content: [{ type: 'text', text: 'hi', cache_control: { type: 'ephemeral' } }] }],
    temperature: 0,
  });
});

test.run();
