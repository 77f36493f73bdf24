import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { validateDraft, type EventDraft } from '../../bus/index.js';
import { ProviderConfigError, ProviderError } from '../../adapters/providers/errors.js';
import type { ModelEntry } from '../../adapters/providers/model-entry.js';
import { createModelRouter, type ModelRouterOptions, type RouterRequest } from '../../adapters/providers/router.js';
import { completion, completionStreamText, sse } from '../support/vendor-chat-completions.js';
import { generated } from '../support/vendor-generate-content.js';
import { message } from '../support/vendor-messages.js';
import { bodyOf, json, startVendorServer, type VendorServer } from '../support/vendor-server.js';

const test = suite('model router');
let a: VendorServer;
let b: VendorServer;
test.before(async () => {
  a = await startVendorServer();
  b = await startVendorServer();
});
test.after(async () => {
  await a.close();
  await b.close();
});
test.before.each(() => {
  a.reset();
  b.reset();
});

const hello: RouterRequest = { messages: [{ role: 'user', content: 'hi' }], tools: [] };

function harness(entries: ModelEntry[], extra: ModelRouterOptions = {}) {
  const events: EventDraft[] = [];
  const sleeps: number[] = [];
  const router = createModelRouter(entries, {
    report: (draft) => {
      validateDraft(draft);
      events.push(draft);
    },
    now: () => 1_000_000,
    sleep: async (ms) => void sleeps.push(ms),
    ...extra,
  });
  return { router, events, sleeps };
}

async function failure(promise: Promise<unknown>): Promise<ProviderError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ProviderError) return error;
    throw error;
  }
  throw new Error('expected a ProviderError');
}

test('api_keys rotate per request: the recorded authorization headers alternate', async () => {
  const { router } = harness([
    { model_name: 'm', provider: 'openai', model: 'gpt-x', api_base: `${a.url}/v1`, api_keys: ['sk-one', 'sk-two'] },
  ]);
  a.reply(completion({ content: '1' }), completion({ content: '2' }), completion({ content: '3' }));
  for (let i = 0; i < 3; i++) await router.chat('m', hello);
  assert.equal(
    a.requests.map((r) => r.headers.authorization),
    ['Bearer sk-one', 'Bearer sk-two', 'Bearer sk-one'],
  );
});

test('repeated model_names form a pool used round robin across two servers', async () => {
  const { router } = harness([
    { model_name: 'pool', provider: 'vllm', model: 'llama-a', api_base: `${a.url}/v1` },
    { model_name: 'pool', provider: 'vllm', model: 'llama-b', api_base: `${b.url}/v1` },
  ]);
  a.reply(completion({ content: 'a1' }), completion({ content: 'a2' }));
  b.reply(completion({ content: 'b1' }), completion({ content: 'b2' }));
  const texts: string[] = [];
  for (let i = 0; i < 4; i++) texts.push((await router.chat('pool', hello)).text);
  assert.equal(texts, ['a1', 'b1', 'a2', 'b2']);
  assert.equal(
    a.requests.map((r) => (bodyOf(r) as { model: string }).model),
    ['llama-a', 'llama-a'],
  );
  assert.is(a.requests[0]!.headers.authorization, undefined);
});

const selection: Array<{
  entry: Omit<ModelEntry, 'api_base' | 'model_name'>;
  base: string;
  path: string;
  model: string;
}> = [
  {
    entry: { model: 'openai/gpt-4o-mini', api_keys: ['k'] },
    base: '/v1',
    path: '/v1/chat/completions',
    model: 'gpt-4o-mini',
  },
  {
    entry: { model: 'openrouter/anthropic/claude-sonnet-4', api_keys: ['k'] },
    base: '/api/v1',
    path: '/api/v1/chat/completions',
    model: 'anthropic/claude-sonnet-4',
  },
  {
    entry: { provider: 'openrouter', model: 'anthropic/claude-sonnet-4', api_keys: ['k'] },
    base: '/api/v1',
    path: '/api/v1/chat/completions',
    model: 'anthropic/claude-sonnet-4',
  },
  {
    entry: { provider: 'groq', model: 'openai/gpt-oss-20b', api_key: 'k' },
    base: '/openai/v1',
    path: '/openai/v1/chat/completions',
    model: 'openai/gpt-oss-20b',
  },
  { entry: { model: 'ollama/qwen3:8b' }, base: '/v1', path: '/v1/chat/completions', model: 'qwen3:8b' },
];
for (const { entry, base, path, model } of selection) {
  const provider = entry.provider ? `provider ${entry.provider}, ` : '';
  test(`model selection: ${provider}model ${entry.model} sends ${model}`, async () => {
    const { router } = harness([{ model_name: 'sel', api_base: `${a.url}${base}`, ...entry }]);
    a.reply(completion({ content: 'ok' }));
    await router.chat('sel', hello);
    assert.is(a.requests[0]!.url, path);
    assert.is((bodyOf(a.requests[0]) as { model: string }).model, model);
  });
}

test('on 429 the next pool member answers, the failing one cools down, and both are events', async () => {
  const { router, events, sleeps } = harness([
    {
      model_name: 'pool',
      provider: 'openai',
      model: 'gpt-a',
      api_base: `${a.url}/v1`,
      api_keys: ['sk-aaaaaaaaaaaaaaaa'],
    },
    {
      model_name: 'pool',
      provider: 'deepseek',
      model: 'ds-b',
      api_base: `${b.url}/v1`,
      api_keys: ['sk-bbbbbbbbbbbbbbbb'],
    },
  ]);
  a.reply(
    json({ error: { message: 'Rate limit reached for requests', type: 'requests', code: 'rate_limit_exceeded' } }, 429),
  );
  b.reply(completion({ content: 'from b' }), completion({ content: 'b again' }), completion({ content: 'b third' }));
  assert.is((await router.chat('pool', hello)).text, 'from b');
  assert.equal(events, [
    {
      type: 'provider.failed',
      data: {
        code: 'rate_limit',
        status: 429,
        model_name: 'pool',
        key_index: 0,
        message: 'model entry "pool" (openai/gpt-a) key 1 of 1 (sk-a…aa): HTTP 429: Rate limit reached for requests',
      },
    },
    { type: 'provider.retried', data: { code: 'rate_limit', attempt: 1, next_model: 'deepseek/ds-b', delay_ms: 0 } },
  ]);
  assert.equal(sleeps, []);
  assert.is((await router.chat('pool', hello)).text, 'b again');
  assert.is((await router.chat('pool', hello)).text, 'b third', 'a is still cooling down, so its turn goes to b');
  assert.is(a.requests.length, 1);
});

test('a 401 is not retried and names the model entry and the masked key', async () => {
  const { router, events } = harness([
    {
      model_name: 'main',
      provider: 'openai',
      model: 'gpt-a',
      api_base: `${a.url}/v1`,
      api_keys: ['sk-first-0000000001', 'sk-second-000000002'],
    },
    {
      model_name: 'main',
      provider: 'openai',
      model: 'gpt-b',
      api_base: `${b.url}/v1`,
      api_keys: ['sk-other-0000000003'],
    },
  ]);
  a.reply(
    completion({ content: 'ok' }),
    json(
      { error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' } },
      401,
    ),
  );
  b.reply(completion({ content: 'ok' }));
  await router.chat('main', hello);
  await router.chat('main', hello);
  const error = await failure(router.chat('main', hello));
  assert.equal(
    [error.code, error.status, error.retryable, error.modelName, error.keyIndex],
    ['auth', 401, false, 'main', 1],
  );
  assert.is(
    error.message,
    'model entry "main" (openai/gpt-a) key 2 of 2 (sk-s…02) was refused: HTTP 401: Incorrect API key provided. ' +
      'Check that key in api_keys for "main"',
  );
  assert.is(a.requests.length, 2);
  assert.is(b.requests.length, 1);
  assert.equal(
    events.map((e) => e.type),
    ['provider.failed'],
  );
});

test('with every key cooling, retries back off and doubling delays are reported', async () => {
  const { router, events, sleeps } = harness([
    { model_name: 'one', provider: 'mistral', model: 'm', api_base: `${a.url}/v1`, api_keys: ['k1'] },
  ]);
  a.reply(
    json({ error: { message: 'busy' } }, 503),
    json({ error: { message: 'busy' } }, 503),
    completion({ content: 'finally' }),
  );
  assert.is((await router.chat('one', hello)).text, 'finally');
  assert.equal(sleeps, [500, 1000]);
  assert.equal(
    events.filter((e) => e.type === 'provider.retried').map((e) => e.data),
    [
      { code: 'overloaded', attempt: 1, next_model: 'mistral/m', delay_ms: 500 },
      { code: 'overloaded', attempt: 2, next_model: 'mistral/m', delay_ms: 1000 },
    ],
  );
});

test('retries stop after maxAttempts with the last failure', async () => {
  const { router } = harness([{ model_name: 'one', provider: 'vllm', model: 'm', api_base: `${a.url}/v1` }], {
    maxAttempts: 2,
  });
  a.reply(json({ error: { message: 'busy' } }, 529), json({ error: { message: 'still busy' } }, 529));
  const error = await failure(router.chat('one', hello));
  assert.equal([error.code, error.status, a.requests.length], ['overloaded', 529, 2]);
});

test('a context overflow is not retried', async () => {
  const { router } = harness([{ model_name: 'one', provider: 'vllm', model: 'm', api_base: `${a.url}/v1` }]);
  a.reply(
    json(
      {
        error: {
          message: "This model's maximum context length is 8192 tokens",
          type: 'invalid_request_error',
          code: 'context_length_exceeded',
        },
      },
      400,
    ),
  );
  const error = await failure(router.chat('one', hello));
  assert.equal([error.code, a.requests.length], ['context_overflow', 1]);
});

test('a stream failing before any visible chunk is asked once more through the normal request', async () => {
  const { router, events } = harness([
    { model_name: 's', provider: 'vllm', model: 'm', api_base: `${a.url}/v1`, streaming: { enabled: true } },
  ]);
  a.reply(json({ error: { message: 'stream broke' } }, 500), completion({ content: 'whole answer' }));
  const chunks: string[] = [];
  const response = await router.chat('s', hello, { onChunk: (c) => chunks.push(c.delta) });
  assert.is(response.text, 'whole answer');
  assert.equal(chunks, []);
  assert.equal(
    [(bodyOf(a.requests[0]) as { stream?: boolean }).stream, (bodyOf(a.requests[1]) as { stream?: boolean }).stream],
    [true, undefined],
  );
  assert.equal(
    events.map((e) => e.type),
    ['provider.failed', 'provider.retried'],
  );
});

test('after a stream failed once, later retries of the same request stay non-streaming', async () => {
  const { router } = harness([
    { model_name: 's', provider: 'vllm', model: 'm', api_base: `${a.url}/v1`, streaming: { enabled: true } },
  ]);
  a.reply(
    json({ error: { message: 'stream broke' } }, 500),
    json({ error: { message: 'busy' } }, 503),
    completion({ content: 'third time' }),
  );
  assert.is((await router.chat('s', hello)).text, 'third time');
  assert.equal(
    a.requests.map((r) => (bodyOf(r) as { stream?: boolean }).stream),
    [true, undefined, undefined],
  );
});

test('a stream failing after a visible chunk gives no second answer', async () => {
  const { router, events } = harness([
    { model_name: 's', provider: 'vllm', model: 'm', api_base: `${a.url}/v1`, streaming: { enabled: true } },
  ]);
  const text = completionStreamText([{ content: 'Hello' }, { content: ' there' }]);
  a.reply(sse([text.slice(0, text.indexOf(' there'))], 'hang-up'), completion({ content: 'must not be asked' }));
  const chunks: string[] = [];
  const error = await failure(router.chat('s', hello, { onChunk: (c) => chunks.push(c.delta) }));
  assert.is(error.code, 'network');
  assert.equal(chunks, ['Hello']);
  assert.is(a.requests.length, 1);
  assert.equal(
    events.map((e) => e.type),
    ['provider.failed'],
  );
});

test('entries with enabled: false leave the pool; describe lists every entry with masked keys', async () => {
  const { router } = harness([
    {
      model_name: 'pool',
      provider: 'openai',
      model: 'gpt-a',
      api_base: `${a.url}/v1`,
      api_keys: ['sk-aaaaaaaaaaaaaaaa'],
      enabled: false,
    },
    {
      model_name: 'pool',
      provider: 'anthropic',
      model: 'claude-b',
      api_base: `${b.url}/v1`,
      api_key: 'sk-ant-bbbbbbbbbbbb',
    },
    { model_name: 'off', model: 'gemini/gemini-2.5-flash', enabled: false },
  ]);
  b.reply(message([{ type: 'text', text: 'b1' }]), message([{ type: 'text', text: 'b2' }]));
  assert.equal([(await router.chat('pool', hello)).text, (await router.chat('pool', hello)).text], ['b1', 'b2']);
  assert.is(a.requests.length, 0);
  assert.equal(router.describe(), [
    {
      model_name: 'pool',
      provider: 'openai',
      family: 'chat-completions',
      model: 'gpt-a',
      api_base: `${a.url}/v1`,
      key_count: 1,
      masked_keys: ['sk-a…aa'],
      enabled: false,
    },
    {
      model_name: 'pool',
      provider: 'anthropic',
      family: 'messages',
      model: 'claude-b',
      api_base: `${b.url}/v1`,
      key_count: 1,
      masked_keys: ['sk-a…bb'],
      enabled: true,
    },
    {
      model_name: 'off',
      provider: 'gemini',
      family: 'generate-content',
      model: 'gemini-2.5-flash',
      api_base: 'https://generativelanguage.googleapis.com/v1beta',
      key_count: 0,
      masked_keys: [],
      enabled: false,
    },
  ]);
  try {
    await router.chat('off', hello);
    assert.unreachable('disabled');
  } catch (error) {
    assert.ok(error instanceof ProviderConfigError);
    assert.is(error.message, 'model "off" is disabled (enabled: false) in model_list');
  }
});

test('a turn through each family: messages and generate-content entries answer through the router', async () => {
  const { router } = harness([
    {
      model_name: 'claude',
      provider: 'anthropic',
      model: 'claude-test',
      api_base: `${a.url}/v1`,
      api_keys: ['sk-ant'],
    },
    { model_name: 'gem', model: 'google/gemini-test', api_base: `${b.url}/v1beta`, api_keys: ['AIza'] },
  ]);
  a.reply(message([{ type: 'tool_use', id: 'toolu_1', name: 'ls', input: { path: '.' } }], 'tool_use'));
  b.reply(generated([{ functionCall: { name: 'ls', args: { path: '.' } } }]));
  const tools = [{ name: 'ls', description: 'List', parameters: { type: 'object' } }];
  assert.equal((await router.chat('claude', { ...hello, tools })).tool_calls, [
    { id: 'toolu_1', name: 'ls', arguments: { path: '.' } },
  ]);
  assert.equal((await router.chat('gem', { ...hello, tools })).tool_calls, [
    { id: 'call_0', name: 'ls', arguments: { path: '.' } },
  ]);
  assert.equal(
    [a.requests[0]!.headers['x-api-key'], b.requests[0]!.url],
    ['sk-ant', '/v1beta/models/gemini-test:generateContent'],
  );
});

const configErrors: Array<{ entry: ModelEntry; field: string; message: RegExp }> = [
  {
    entry: { model_name: 'x', provider: 'acme', model: 'm' },
    field: 'provider',
    message:
      /^model entry x: unknown provider "acme"; known providers: openai, anthropic, gemini, google, openrouter, /,
  },
  {
    entry: { model_name: 'x', model: 'acme/m' },
    field: 'provider',
    message:
      /unknown provider "acme"; known providers: .*lmstudio, custom, antigravity, google-antigravity, github-copilot$/,
  },
  {
    entry: { model_name: 'x', provider: 'custom', model: 'm' },
    field: 'api_base',
    message: /provider "custom" has no default address; set api_base$/,
  },
  {
    entry: { model_name: 'x', provider: 'azure', model: 'm' },
    field: 'api_base',
    message: /provider "azure" has no default address/,
  },
];
for (const { entry, field, message: expected } of configErrors) {
  test(`config error on ${field}: ${entry.provider ?? entry.model}`, () => {
    try {
      createModelRouter([entry]);
      assert.unreachable('should have thrown');
    } catch (error) {
      assert.ok(error instanceof ProviderConfigError);
      assert.is(error.field, field);
      assert.match(error.message, expected);
    }
  });
}

test('a hosted provider without any key fails as auth without calling out', async () => {
  const { router } = harness([{ model_name: 'k', provider: 'openai', model: 'gpt', api_base: `${a.url}/v1` }]);
  const error = await failure(router.chat('k', hello));
  assert.is(error.code, 'auth');
  assert.is(a.requests.length, 0);
});

test('on 429 within one entry the next key is tried at once', async () => {
  const { router, events, sleeps } = harness([
    {
      model_name: 'm',
      provider: 'xai',
      model: 'grok',
      api_base: `${a.url}/v1`,
      api_keys: ['xai-key-number-one', 'xai-key-number-two'],
    },
  ]);
  a.reply(
    json({ error: { message: 'slow down' } }, 429, { 'retry-after': '2' }),
    completion({ content: 'second key' }),
  );
  assert.is((await router.chat('m', hello)).text, 'second key');
  assert.equal(
    a.requests.map((r) => r.headers.authorization),
    ['Bearer xai-key-number-one', 'Bearer xai-key-number-two'],
  );
  assert.equal(
    events.map((e) => e.type),
    ['provider.failed', 'provider.retried'],
  );
  assert.equal(sleeps, []);
});

test('an aborted request is not retried', async () => {
  const { router, events } = harness([{ model_name: 'm', provider: 'vllm', model: 'x', api_base: `${a.url}/v1` }]);
  const controller = new AbortController();
  controller.abort();
  try {
    await router.chat('m', hello, { signal: controller.signal });
    assert.unreachable('should have been aborted');
  } catch (error) {
    assert.not.ok(error instanceof ProviderError);
  }
  assert.equal(events, []);
});

test('correlation keys given with the call are carried by the events', async () => {
  const { router, events } = harness([{ model_name: 'm', provider: 'vllm', model: 'x', api_base: `${a.url}/v1` }], {
    maxAttempts: 1,
  });
  a.reply(json({ error: { message: 'nope' } }, 400));
  await failure(router.chat('m', hello, { correlation: { agent: 'main', session: 'sk_v1_ab', turn: 't1' } }));
  assert.equal(events, [
    {
      agent: 'main',
      session: 'sk_v1_ab',
      turn: 't1',
      type: 'provider.failed',
      data: {
        code: 'bad_request',
        status: 400,
        model_name: 'm',
        message: 'model entry "m" (vllm/x) without a key: HTTP 400: nope',
      },
    },
  ]);
});

test('streamed <tool_call> text is held out of the chunks and becomes a tool call', async () => {
  const { router } = harness([
    { model_name: 's', provider: 'ollama', model: 'qwen3', api_base: `${a.url}/v1`, streaming: { enabled: true } },
  ]);
  a.reply(
    sse([
      completionStreamText([
        { content: 'Let me look. a<b ' },
        { content: 'then <tool_' },
        { content: 'call>{"name":"ls","arguments":{"path":"/tmp"}}' },
        { content: '</tool_call>' },
      ]),
    ]),
    sse([completionStreamText([{ content: 'x <tool' }, { content: '_cal' }])]),
  );
  const chunks: string[] = [];
  const response = await router.chat('s', hello, { onChunk: (c) => chunks.push(c.delta) });
  assert.equal(chunks, ['Let me look. a<b ', 'then ']);
  assert.equal(
    [response.text, response.tool_calls],
    ['Let me look. a<b then', [{ id: 'call_text_0', name: 'ls', arguments: { path: '/tmp' } }]],
  );
  chunks.length = 0;
  assert.is((await router.chat('s', hello, { onChunk: (c) => chunks.push(c.delta) })).text, 'x <tool_cal');
  assert.equal(chunks, ['x ', '<tool_cal'], 'text that only looked like the tag is shown once the answer ends');
});

test('a refused connection is a network failure and the next member answers', async () => {
  const dead = await startVendorServer();
  const deadBase = `${dead.url}/v1`;
  await dead.close();
  const { router, events } = harness([
    { model_name: 'pool', provider: 'lmstudio', model: 'gone', api_base: deadBase },
    { model_name: 'pool', provider: 'lmstudio', model: 'alive', api_base: `${a.url}/v1` },
  ]);
  a.reply(completion({ content: 'alive' }));
  assert.is((await router.chat('pool', hello)).text, 'alive');
  assert.equal(
    events.map((e) => [e.type, (e.data as { code: string }).code]),
    [
      ['provider.failed', 'network'],
      ['provider.retried', 'network'],
    ],
  );
});

test('a server that goes silent is a timeout, retried on the next member', async () => {
  const { router, events } = harness([
    { model_name: 'pool', provider: 'vllm', model: 'slow', api_base: `${a.url}/v1` },
    { model_name: 'pool', provider: 'vllm', model: 'quick', api_base: `${b.url}/v1` },
  ]);
  a.reply({ status: 200, headers: { 'content-type': 'application/json' }, chunks: ['{"choices":'], after: 'stall' });
  b.reply(completion({ content: 'quick' }));
  assert.is((await router.chat('pool', hello, { firstByteTimeoutMs: 150 })).text, 'quick');
  assert.equal((events[0]!.data as { code: string }).code, 'timeout');
});

test.run();
