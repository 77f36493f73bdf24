import * as assert from 'uvu/assert';
import { vendorSuite } from '../support/vendor-suite.js';
import { createGenerateContentClient } from '../../adapters/providers/generate-content.js';
import type { ChatRequest, StreamChunk } from '../../adapters/providers/provider.js';
import { generateSse, generateStreamText, generated } from '../support/vendor-generate-content.js';
import { bodyOf, json, splitBytes } from '../support/vendor-server.js';

const { test, server } = vendorSuite('generate-content family');

const weather = {
  name: 'get_weather',
  description: 'Weather for a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } } },
};

const toolTurn: ChatRequest = {
  model: 'gemini-test',
  system: 'You are terse.',
  messages: [
    { role: 'user', content: 'Weather in Paris and Rome?' },
    {
      role: 'assistant',
      content: '',
      tool_calls: [
        { id: 'call_0', name: 'get_weather', arguments: { city: 'Paris' }, signature: 'c2lnLTE=' },
        { id: 'call_1', name: 'get_weather', arguments: { city: 'Rome' } },
      ],
    },
    { role: 'tool', tool_call_id: 'call_0', name: 'get_weather', content: '18°C' },
    { role: 'tool', tool_call_id: 'call_1', name: 'get_weather', content: '24°C' },
  ],
  tools: [weather],
  stream: false,
};

const client = () =>
  createGenerateContentClient({ family: 'generate-content', apiBase: `${server.url}/v1beta`, apiKey: 'AIza-test' });

test('a tool round trip sends functionCall with its thoughtSignature and functionResponse parts', async () => {
  server.reply(generated([{ text: 'Paris 18°C, Rome 24°C.' }]));
  const response = await client().chat(toolTurn);
  assert.equal(response, {
    text: 'Paris 18°C, Rome 24°C.',
    tool_calls: [],
    usage: { input_tokens: 20, output_tokens: 7 },
    finish_reason: 'STOP',
  });
  const request = server.requests[0]!;
  assert.is(request.url, '/v1beta/models/gemini-test:generateContent');
  assert.is(request.headers['x-goog-api-key'], 'AIza-test');
  assert.equal(bodyOf(request), {
    contents: [
      { role: 'user', parts: [{ text: 'Weather in Paris and Rome?' }] },
      {
        role: 'model',
        parts: [
          { functionCall: { name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: 'c2lnLTE=' },
          { functionCall: { name: 'get_weather', args: { city: 'Rome' } } },
        ],
      },
      {
        role: 'user',
        parts: [
          { functionResponse: { name: 'get_weather', response: { result: '18°C' } } },
          { functionResponse: { name: 'get_weather', response: { result: '24°C' } } },
        ],
      },
    ],
    systemInstruction: { parts: [{ text: 'You are terse.' }] },
    tools: [{ functionDeclarations: [weather] }],
  });
});

test('a function call answers with finishReason STOP and still becomes a tool call', async () => {
  server.reply(
    generated([
      { text: 'Thinking about cities.', thought: true },
      { functionCall: { name: 'get_weather', args: { city: 'Oslo' } }, thoughtSignature: 'c2lnLTk=' },
    ]),
  );
  const response = await client().chat(toolTurn);
  assert.equal(response, {
    text: '',
    reasoning: 'Thinking about cities.',
    tool_calls: [{ id: 'call_0', name: 'get_weather', arguments: { city: 'Oslo' }, signature: 'c2lnLTk=' }],
    usage: { input_tokens: 20, output_tokens: 7 },
    finish_reason: 'STOP',
  });
});

const streamed = generateStreamText(
  [
    [{ text: 'Let me think.', thought: true }],
    [{ text: 'Héllo, ' }],
    [{ text: 'wörld! ' }, { functionCall: { name: 'get_weather', args: { city: 'Zürich' } } }],
  ],
  [31, 12],
);

for (const size of [1, 3, 100_000]) {
  test(`a streamed answer with \\r\\n\\r\\n framing arrives whole from pieces of ${size} bytes`, async () => {
    server.reply(generateSse(splitBytes(streamed, size)));
    const chunks: StreamChunk[] = [];
    const response = await client().chat({ ...toolTurn, stream: true }, { onChunk: (c) => chunks.push(c) });
    assert.equal(response, {
      text: 'Héllo, wörld! ',
      reasoning: 'Let me think.',
      tool_calls: [{ id: 'call_0', name: 'get_weather', arguments: { city: 'Zürich' } }],
      usage: { input_tokens: 31, output_tokens: 12 },
      finish_reason: 'STOP',
    });
    assert.equal(chunks, [
      { kind: 'reasoning', delta: 'Let me think.' },
      { kind: 'text', delta: 'Héllo, ' },
      { kind: 'text', delta: 'wörld! ' },
    ]);
    assert.is(server.requests[0]!.url, '/v1beta/models/gemini-test:streamGenerateContent?alt=sse');
  });
}

test('an invalid key reported as 400 API_KEY_INVALID is an auth failure', async () => {
  server.reply(
    json(
      {
        error: {
          code: 400,
          message: 'API key not valid. Please pass a valid API key.',
          status: 'INVALID_ARGUMENT',
          details: [
            {
              '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
              reason: 'API_KEY_INVALID',
              domain: 'googleapis.com',
            },
          ],
        },
      },
      400,
    ),
  );
  try {
    await client().chat(toolTurn);
    assert.unreachable('should have failed');
  } catch (error) {
    assert.equal([(error as { code?: string }).code, (error as { status?: number }).status], ['auth', 400]);
  }
});

test('generationConfig and extra_body fields are sent as given', async () => {
  server.reply(generated([{ text: 'ok' }]));
  await client().chat({
    model: 'gemini-test',
    messages: [{ role: 'user', content: 'hi' }],
    tools: [],
    stream: false,
    maxTokens: 50,
    extraBody: { safetySettings: [] },
  });
  assert.equal(bodyOf(server.requests[0]), {
    contents: [{ role: 'user', parts: [{ text: 'hi' }] }],
    generationConfig: { maxOutputTokens: 50 },
    safetySettings: [],
  });
});

test.run();
