import * as assert from 'uvu/assert';
import { vendorSuite } from '../support/vendor-suite.js';
import { createChatCompletionsClient } from '../../adapters/providers/chat-completions.js';
import type { ChatRequest, StreamChunk } from '../../adapters/providers/provider.js';
import { completion, completionStreamText, sse } from '../support/vendor-chat-completions.js';
import { bodyOf, json, splitBytes, type ScriptedReply } from '../support/vendor-server.js';

const { test, server } = vendorSuite('chat-completions family');

const weather = {
  name: 'get_weather',
  description: 'Weather for a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } } },
};

const toolTurn: ChatRequest = {
  model: 'gpt-test',
  system: 'You are terse.',
  messages: [
    { role: 'user', content: 'Weather in Paris?' },
    {
      role: 'assistant',
      content: '',
      tool_calls: [{ id: 'call_1', name: 'get_weather', arguments: { city: 'Paris' } }],
    },
    { role: 'tool', tool_call_id: 'call_1', name: 'get_weather', content: '18°C, clear' },
  ],
  tools: [weather],
  stream: false,
};

const client = () =>
  createChatCompletionsClient({ family: 'chat-completions', apiBase: `${server.url}/v1`, apiKey: 'sk-test-1' });

test('a tool round trip is sent in the documented request shape', async () => {
  server.reply(completion({ content: 'It is 18°C and clear in Paris.' }));
  const response = await client().chat(toolTurn);
  assert.equal(response, {
    text: 'It is 18°C and clear in Paris.',
    tool_calls: [],
    usage: { input_tokens: 12, output_tokens: 5 },
    finish_reason: 'stop',
  });
  const request = server.requests[0]!;
  assert.is(request.url, '/v1/chat/completions');
  assert.is(request.headers.authorization, 'Bearer sk-test-1');
  assert.is(request.headers['content-type'], 'application/json');
  assert.equal(bodyOf(request), {
    model: 'gpt-test',
    messages: [
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: 'Weather in Paris?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: '18°C, clear' },
    ],
    tools: [{ type: 'function', function: weather }],
  });
});

test('a non-streamed tool call arrives with parsed arguments', async () => {
  server.reply(
    completion(
      {
        tool_calls: [
          { id: 'call_9', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } },
        ],
      },
      'tool_calls',
    ),
  );
  const response = await client().chat({ ...toolTurn, messages: [{ role: 'user', content: 'Oslo?' }] });
  assert.equal(response, {
    text: '',
    tool_calls: [{ id: 'call_9', name: 'get_weather', arguments: { city: 'Oslo' } }],
    usage: { input_tokens: 12, output_tokens: 5 },
    finish_reason: 'tool_calls',
  });
});

const streamedToolCall = completionStreamText(
  [
    { content: 'Checking' },
    { content: ' the weather…' },
    { tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '' } }] },
    { tool_calls: [{ index: 0, function: { arguments: '{"ci' } }] },
    {
      tool_calls: [
        { index: 1, id: 'call_b', type: 'function', function: { name: 'get_weather', arguments: '{"city":' } },
      ],
    },
    { tool_calls: [{ index: 0, function: { arguments: 'ty":"Zürich"}' } }] },
    { tool_calls: [{ index: 1, function: { arguments: '"Bern"}' } }] },
  ],
  'tool_calls',
  { prompt_tokens: 30, completion_tokens: 21 },
);

for (const size of [1, 7, 64, 100_000]) {
  test(`streamed tool-call deltas merge by index when the bytes arrive in pieces of ${size}`, async () => {
    server.reply(sse(splitBytes(streamedToolCall, size)));
    const chunks: StreamChunk[] = [];
    const response = await client().chat({ ...toolTurn, stream: true }, { onChunk: (c) => chunks.push(c) });
    assert.equal(response, {
      text: 'Checking the weather…',
      tool_calls: [
        { id: 'call_a', name: 'get_weather', arguments: { city: 'Zürich' } },
        { id: 'call_b', name: 'get_weather', arguments: { city: 'Bern' } },
      ],
      usage: { input_tokens: 30, output_tokens: 21 },
      finish_reason: 'tool_calls',
    });
    assert.equal(chunks, [
      { kind: 'text', delta: 'Checking' },
      { kind: 'text', delta: ' the weather…' },
    ]);
    const body = bodyOf(server.requests[0]) as Record<string, unknown>;
    assert.is(body.stream, true);
    assert.equal(body.stream_options, { include_usage: true });
  });
}

test('reasoning_content is kept apart from the answer, in the response and in the chunks', async () => {
  server.reply(
    sse([
      completionStreamText([
        { reasoning_content: 'User wants a greeting. ' },
        { reasoning_content: 'Keep it short.' },
        { content: 'Hi!' },
      ]),
    ]),
  );
  const chunks: StreamChunk[] = [];
  const response = await client().chat({ ...toolTurn, stream: true }, { onChunk: (c) => chunks.push(c) });
  assert.is(response.text, 'Hi!');
  assert.is(response.reasoning, 'User wants a greeting. Keep it short.');
  assert.equal(
    chunks.map((c) => c.kind),
    ['reasoning', 'reasoning', 'text'],
  );
});

test('an answer with only reasoning is returned as it is, not as an empty response', async () => {
  server.reply(completion({ content: '', reasoning_content: 'Nothing to add.' }));
  const response = await client().chat(toolTurn);
  assert.equal(response, {
    text: '',
    reasoning: 'Nothing to add.',
    tool_calls: [],
    usage: { input_tokens: 12, output_tokens: 5 },
    finish_reason: 'stop',
  });
});

test('a <think> block before the answer lands in reasoning', async () => {
  server.reply(completion({ content: '<think>Plan the reply.</think>\nHello.' }));
  const response = await client().chat(toolTurn);
  assert.is(response.text, 'Hello.');
  assert.is(response.reasoning, 'Plan the reply.');
});

test('tool calls written as <tool_call> text become real tool calls', async () => {
  server.reply(
    completion({
      content:
        'Let me look.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Lima"}}\n</tool_call>\n' +
        '<tool_call>{"name":"get_weather","arguments":"{\\"city\\":\\"Quito\\"}"}</tool_call>',
    }),
  );
  const response = await client().chat(toolTurn);
  assert.is(response.text, 'Let me look.');
  assert.equal(response.tool_calls, [
    { id: 'call_text_0', name: 'get_weather', arguments: { city: 'Lima' } },
    { id: 'call_text_1', name: 'get_weather', arguments: { city: 'Quito' } },
  ]);
});

test('extra_body and custom headers pass through unchanged', async () => {
  server.reply(completion({ content: 'ok' }));
  await client().chat({
    ...toolTurn,
    messages: [{ role: 'user', content: 'hi' }],
    tools: [],
    maxTokens: 64,
    extraBody: { temperature: 0.2, provider: { order: ['groq'] } },
    headers: { 'HTTP-Referer': 'https://tern.local' },
  });
  assert.equal(bodyOf(server.requests[0]), {
    model: 'gpt-test',
    messages: [
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: 'hi' },
    ],
    max_tokens: 64,
    temperature: 0.2,
    provider: { order: ['groq'] },
  });
  assert.is(server.requests[0]!.headers['http-referer'], 'https://tern.local');
});

test('a stream cut off before its end is a network failure, not a short answer', async () => {
  const text = completionStreamText([{ content: 'Hello' }, { content: ' world' }]);
  server.reply(sse([text.slice(0, text.indexOf(' world'))], 'hang-up'));
  try {
    await client().chat({ ...toolTurn, stream: true });
    assert.unreachable('should have failed');
  } catch (error) {
    assert.is((error as { code?: string }).code, 'network');
  }
});

test('`reasoning` (the router spelling) is kept apart too', async () => {
  server.reply(
    json({
      id: 'gen-1',
      object: 'chat.completion',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: 'Yes.', reasoning: 'Checked twice.' },
          finish_reason: 'stop',
        },
      ],
    }),
  );
  assert.equal(await client().chat(toolTurn), {
    text: 'Yes.',
    reasoning: 'Checked twice.',
    tool_calls: [],
    finish_reason: 'stop',
  });
});

const unreadable: Array<{ name: string; reply: () => ScriptedReply; stream: boolean }> = [
  {
    name: 'a body that is not JSON',
    reply: () => ({ status: 200, headers: { 'content-type': 'text/html' }, chunks: ['<html>proxy login</html>'] }),
    stream: false,
  },
  { name: 'JSON without choices', reply: () => json({ object: 'chat.completion', choices: [] }), stream: false },
  { name: 'a stream chunk that is not JSON', reply: () => sse(['data: {"choices": [\n\n']), stream: true },
];
for (const { name, reply, stream } of unreadable) {
  test(`${name} is a typed failure, not a crash`, async () => {
    server.reply(reply());
    try {
      await client().chat({ ...toolTurn, stream });
      assert.unreachable('should have failed');
    } catch (error) {
      assert.is((error as { code?: string }).code, 'unknown');
    }
  });
}

test.run();
