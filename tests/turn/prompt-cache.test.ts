// Prompt caching in real turns: loopback vendors that cache as the vendors do (tests/support/vendor-prompt-cache.ts)
// report cached tokens, and provider.responded carries them for every family.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Envelope } from '../../bus/index.js';
import { startTurnFixture, type TurnFixture } from '../support/turn-fixture.js';
import { completion } from '../support/vendor-chat-completions.js';
import { message } from '../support/vendor-messages.js';
import { breakpointPaths, chatCompletionsPromptCache, commonPrefix, messagesPromptCache, tooManyBreakpoints } from '../support/vendor-prompt-cache.js';
import { json, type RecordedRequest } from '../support/vendor-server.js';

const noon = () => new Date('2026-11-27T12:00:30Z');
const usages = (f: TurnFixture) => f.events.filter((e): e is Envelope<'provider.responded'> => e.type === 'provider.responded').map((e) => e.data.usage);
const bodyAt = (f: TurnFixture, i: number) => JSON.parse(f.vendor.requests[i]!.body.toString()) as Record<string, unknown>;

test('messages: breakpoints after the tools, the system prompt, the earlier history and the last message; the next call reads the cache', async () => {
  const f = await startTurnFixture({ defaults: { model: 'claude' }, models: [{ model_name: 'claude', provider: 'anthropic', model: 'claude-test' }] }, { now: noon });
  try {
    const cache = messagesPromptCache();
    const cached = (blocks: Parameters<typeof message>[0], stop = 'end_turn') => (request: RecordedRequest) => {
      const usage = cache.usage(request);
      return 'error' in usage ? tooManyBreakpoints(usage.error) : message(blocks, stop, { ...usage, output_tokens: 4 });
    };
    f.vendor.reply(
      cached([{ type: 'tool_use', id: 'toolu_1', name: 'list_dir', input: { path: '.' } }], 'tool_use'),
      cached([{ type: 'text', text: 'Three files.' }]),
      cached([{ type: 'text', text: 'You are welcome.' }]),
    );
    await f.send('What is here?');
    await f.send('Thanks!');
    // Our last tool: the vendor's own web_search (prefer_native) follows it unmarked.
    const last = (bodyAt(f, 0).tools as Array<Record<string, unknown>>).findLastIndex((t) => 'input_schema' in t);
    assert.equal([0, 1, 2].map((i) => breakpointPaths(bodyAt(f, i))), [
      [`tools[${last}]`, 'system[0]', 'messages[0].content[0]'],
      [`tools[${last}]`, 'system[0]', 'messages[2].content[0]'],
      [`tools[${last}]`, 'system[0]', 'messages[1].content[0]', 'messages[2].content[0]'],
    ]);
    const [first, second, third] = usages(f);
    assert.is(first!.cached_input_tokens, undefined);
    assert.ok(first!.cache_write_input_tokens! > 0);
    // The turn's second call reads everything the first wrote; the next turn reads through the first turn's question.
    assert.is(second!.cached_input_tokens, first!.cache_write_input_tokens);
    assert.is(third!.cached_input_tokens, first!.cache_write_input_tokens);
    assert.is(first!.input_tokens, first!.cache_write_input_tokens);
  } finally {
    await f.close();
  }
});

test('chat-completions: the second turn repeats the first request byte for byte through its question, and cached_tokens are recorded', async () => {
  const f = await startTurnFixture({}, { now: noon });
  try {
    const cache = chatCompletionsPromptCache();
    f.vendor.reply((r) => completion({ content: 'pong' }, 'stop', cache.usage(r)), (r) => completion({ content: 'Noon.' }, 'stop', cache.usage(r)));
    await f.send('ping');
    await f.send('What time is it?');
    const [first, second] = f.vendor.requests.map((r) => r.body);
    const shared = commonPrefix(first!, second!);
    assert.is(shared, first!.length - 2, 'the first request, all but the "]}" that closes its messages');
    assert.equal(usages(f), [
      { input_tokens: Math.ceil(first!.length / 4), output_tokens: 5 },
      { input_tokens: Math.ceil(second!.length / 4), output_tokens: 5, cached_input_tokens: Math.floor(shared / 4) },
    ]);
  } finally {
    await f.close();
  }
});

test('generate-content: cachedContentTokenCount is recorded as the cached share', async () => {
  const f = await startTurnFixture({ defaults: { model: 'g' }, models: [{ model_name: 'g', provider: 'gemini', model: 'gemini-test', api_base: '{vendor}/v1beta' }] });
  try {
    f.vendor.reply(json({ candidates: [{ content: { role: 'model', parts: [{ text: 'pong' }] }, finishReason: 'STOP' }],
      usageMetadata: { promptTokenCount: 5000, cachedContentTokenCount: 4096, candidatesTokenCount: 2, totalTokenCount: 5002 } }));
    await f.send('ping');
    assert.equal(usages(f), [{ input_tokens: 5000, output_tokens: 2, cached_input_tokens: 4096 }]);
  } finally {
    await f.close();
  }
});

test.run();
