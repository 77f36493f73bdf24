// The request bodies of a turn that may search (`nativeSearch`), exactly, for each endpoint that searches by itself.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { chatCompletionsBody } from '../../adapters/providers/chat-completions.js';
import { generateContentBody } from '../../adapters/providers/generate-content.js';
import { messagesBody } from '../../adapters/providers/messages.js';
import { nativeSearchOf } from '../../adapters/providers/native-search.js';
import type { ChatRequest } from '../../adapters/providers/provider.js';

const fetchSpec = { name: 'web_fetch', description: 'Fetches', parameters: { type: 'object' } };
const searchSpec = { name: 'web_search', description: 'Searches', parameters: { type: 'object' } };
const request: ChatRequest = {
  model: 'm',
  messages: [{ role: 'user', content: 'news?' }],
  tools: [fetchSpec, searchSpec],
  stream: false,
  nativeSearch: true,
};
const fetchJson =
  '{"type":"function","function":{"name":"web_fetch","description":"Fetches","parameters":{"type":"object"}}}';
const searchJson =
  '{"type":"function","function":{"name":"web_search","description":"Searches","parameters":{"type":"object"}}}';
const chat = (provider: string, change: Partial<ChatRequest> = {}) =>
  chatCompletionsBody({ ...request, ...change }, nativeSearchOf('chat-completions', provider, 'm')).toString('utf8');

test(
  "chat-completions: OpenRouter's web plugin, " +
    "Qwen's enable_search and Zhipu's web_search tool replace our web_search",
  () => {
    assert.is(
      chat('openrouter'),
      `{"model":"m","tools":[${fetchJson}],"messages":[{"role":"user","content":"news?"}],"plugins":[{"id":"web"}]}`,
    );
    assert.is(
      chat('qwen'),
      `{"model":"m","tools":[${fetchJson}],"messages":[{"role":"user","content":"news?"}],"enable_search":true}`,
    );
    assert.is(
      chat('zhipu'),
      `{"model":"m","tools":[${fetchJson},{"type":"web_search","web_search":{"enable":true}}],` +
        `"messages":[{"role":"user","content":"news?"}]}`,
    );
  },
);

test(
  'chat-completions: a provider without a search of its own, ' +
    'or a turn that may not search, keeps the tools as they are',
  () => {
    const plain = `{"model":"m","tools":[${fetchJson},${searchJson}],"messages":[{"role":"user","content":"news?"}]}`;
    assert.is(chat('openai'), plain);
    assert.is(chat('deepseek'), plain);
    assert.is(chat('openrouter', { nativeSearch: false }), plain);
    assert.is(chat('openrouter', { nativeSearch: undefined }), plain);
  },
);

test('messages: the web_search server tool after our tools, the cache mark on our last one', () => {
  const body = messagesBody(request, nativeSearchOf('messages', 'anthropic', 'claude-test'));
  assert.is(
    JSON.stringify(body.tools),
    '[{"name":"web_fetch","description":"Fetches","input_schema":{"type":"object"},' +
      '"cache_control":{"type":"ephemeral"}},' +
      '{"type":"web_search_20250305","name":"web_search","max_uses":5}]',
  );
  assert.is(
    JSON.stringify(
      messagesBody({ ...request, tools: [searchSpec] }, nativeSearchOf('messages', 'anthropic', 'claude-test')).tools,
    ),
    '[{"type":"web_search_20250305","name":"web_search","max_uses":5}]',
  );
});

test(
  'generate-content: google_search after the declarations from Gemini 3; ' +
    'before it only in a request without functions',
  () => {
    const newer = generateContentBody(request, nativeSearchOf('generate-content', 'gemini', 'gemini-3-flash'));
    assert.is(
      JSON.stringify(newer.tools),
      '[{"functionDeclarations":[{"name":"web_fetch","description":"Fetches",' +
        '"parameters":{"type":"object"}}]},{"google_search":{}}]',
    );
    const older = nativeSearchOf('generate-content', 'gemini', 'gemini-2.5-pro');
    assert.is(
      JSON.stringify(generateContentBody(request, older).tools),
      '[{"functionDeclarations":[{"name":"web_fetch","description":"Fetches","parameters":{"type":"object"}},' +
        '{"name":"web_search","description":"Searches","parameters":{"type":"object"}}]}]',
    );
    assert.is(
      JSON.stringify(generateContentBody({ ...request, tools: [searchSpec] }, older).tools),
      '[{"google_search":{}}]',
    );
  },
);

test.run();
