import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { providerCatalogue } from '../../adapters/providers/catalogue.js';
import { resolveModelEntry } from '../../adapters/providers/resolve.js';

const expected: Record<string, { family: string; needsKey: boolean }> = {
  openai: { family: 'chat-completions', needsKey: true },
  anthropic: { family: 'messages', needsKey: true },
  gemini: { family: 'generate-content', needsKey: true },
  google: { family: 'generate-content', needsKey: true },
  openrouter: { family: 'chat-completions', needsKey: true },
  groq: { family: 'chat-completions', needsKey: true },
  deepseek: { family: 'chat-completions', needsKey: true },
  mistral: { family: 'chat-completions', needsKey: true },
  xai: { family: 'chat-completions', needsKey: true },
  cerebras: { family: 'chat-completions', needsKey: true },
  together: { family: 'chat-completions', needsKey: true },
  fireworks: { family: 'chat-completions', needsKey: true },
  nvidia: { family: 'chat-completions', needsKey: true },
  zhipu: { family: 'chat-completions', needsKey: true },
  moonshot: { family: 'chat-completions', needsKey: true },
  qwen: { family: 'chat-completions', needsKey: true },
  siliconflow: { family: 'chat-completions', needsKey: true },
  volcengine: { family: 'chat-completions', needsKey: true },
  minimax: { family: 'chat-completions', needsKey: true },
  'anthropic-messages': { family: 'messages', needsKey: true },
  venice: { family: 'chat-completions', needsKey: true },
  longcat: { family: 'chat-completions', needsKey: true },
  modelscope: { family: 'chat-completions', needsKey: true },
  azure: { family: 'chat-completions', needsKey: true },
  litellm: { family: 'chat-completions', needsKey: false },
  ollama: { family: 'chat-completions', needsKey: false },
  vllm: { family: 'chat-completions', needsKey: false },
  lmstudio: { family: 'chat-completions', needsKey: false },
  custom: { family: 'chat-completions', needsKey: false },
  antigravity: { family: 'cloud-code', needsKey: false },
  'google-antigravity': { family: 'cloud-code', needsKey: false },
  'github-copilot': { family: 'copilot', needsKey: false },
};

test('the catalogue holds exactly the documented providers with their family and key need', () => {
  assert.equal(
    Object.fromEntries(
      Object.entries(providerCatalogue).map(([id, p]) => [id, { family: p.family, needsKey: p.needsKey }]),
    ),
    expected,
  );
});

test('every provider with a default address resolves to it over http(s), without a trailing slash', () => {
  for (const [id, entry] of Object.entries(providerCatalogue)) {
    if (entry.apiBase === '') continue;
    const resolved = resolveModelEntry({ model_name: id, provider: id, model: 'm' });
    assert.match(resolved.apiBase, /^https?:\/\/[^ ]+[^/]$/, id);
  }
});

test('api_base overrides the default and loses its trailing slashes; api_key joins api_keys', () => {
  const resolved = resolveModelEntry({
    model_name: 'n',
    provider: 'openai',
    model: 'gpt',
    api_base: 'http://127.0.0.1:9/v1//',
    api_keys: ['a'],
    api_key: 'b',
  });
  assert.equal([resolved.apiBase, resolved.keys], ['http://127.0.0.1:9/v1', ['a', 'b']]);
});

test('azure sends its key in the api-key header', () => {
  assert.is(
    resolveModelEntry({
      model_name: 'n',
      provider: 'azure',
      model: 'gpt',
      api_base: 'https://x.openai.azure.com/openai/v1',
    }).keyHeader,
    'api-key',
  );
});

test('a malformed entry is a config error naming the field', () => {
  try {
    resolveModelEntry({ model_name: 'n', provider: 'openai', model: '', api_keys: [] });
    assert.unreachable('should have thrown');
  } catch (error) {
    assert.equal(
      [(error as { code?: string }).code, (error as { field?: string }).field],
      ['provider_config', 'model'],
    );
  }
});

test.run();
