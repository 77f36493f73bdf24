// Prompt caching in the request bodies: the messages family marks breakpoints after the tools, after the system
// prompt, at the end of the history the turn started from and at the last message (the vendor's limit is four);
// every family sends the parts that repeat from call to call first.
import * as assert from 'uvu/assert';
import { chatCompletionsBody } from '../../adapters/providers/chat-completions.js';
import { generateContentBody } from '../../adapters/providers/generate-content.js';
import { createMessagesClient, messagesBody } from '../../adapters/providers/messages.js';
import type { ChatRequest } from '../../adapters/providers/provider.js';
import type { ChatMessage } from '../../bus/index.js';
import { message } from '../support/vendor-messages.js';
import { vendorSuite } from '../support/vendor-suite.js';
import {
  breakpointPaths,
  commonPrefix,
  MAX_BREAKPOINTS,
  messagesPromptCache,
  tooManyBreakpoints,
} from '../support/vendor-prompt-cache.js';

const { test, server } = vendorSuite('prompt caching in request bodies');

const read = { name: 'read', description: 'Reads', parameters: { type: 'object' } };
const write = { name: 'write', description: 'Writes', parameters: { type: 'object' } };
const earlier: ChatMessage[] = [
  { role: 'user', content: 'hi' },
  { role: 'assistant', content: 'Hello.', reasoning: 'Greet.', reasoning_signature: 'sig', tool_calls: [] },
];
const asked: ChatMessage = { role: 'user', content: 'read a' };
const call: ChatMessage = {
  role: 'assistant',
  content: '',
  tool_calls: [{ id: 't1', name: 'read', arguments: { path: 'a' } }],
};
const result: ChatMessage = { role: 'tool', tool_call_id: 't1', name: 'read', content: 'A' };
const secondCall: ChatRequest = {
  model: 'claude-test',
  system: 'Be brief.',
  messages: [...earlier, asked, call, result],
  tools: [read, write],
  stream: false,
};

test('messages: four breakpoints (last tool, system, end of the earlier history, last message), exactly', async () => {
  server.reply(message([{ type: 'text', text: 'A.' }]));
  await createMessagesClient({ family: 'messages', apiBase: `${server.url}/v1`, apiKey: 'sk-ant-test' }).chat(
    secondCall,
  );
  assert.is(
    server.requests[0]!.body.toString(),
    '{"model":"claude-test","max_tokens":4096,' +
      '"tools":[{"name":"read","description":"Reads","input_schema":{"type":"object"}},' +
      '{"name":"write","description":"Writes","input_schema":{"type":"object"},' +
      '"cache_control":{"type":"ephemeral"}}],' +
      '"system":[{"type":"text","text":"Be brief.","cache_control":{"type":"ephemeral"}}],' +
      '"messages":[{"role":"user","content":"hi"},' +
      '{"role":"assistant","content":[{"type":"thinking","thinking":"Greet.","signature":"sig"},' +
      '{"type":"text","text":"Hello.","cache_control":{"type":"ephemeral"}}]},' +
      '{"role":"user","content":"read a"},' +
      '{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"read","input":{"path":"a"}}]},' +
      '{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1",' +
      '"content":"A","cache_control":{"type":"ephemeral"}}]}]}',
  );
});

test(
  'messages: the first call of a turn marks the earlier history and the question; ' +
    'without tools or system only the messages',
  () => {
    const first = messagesBody({ ...secondCall, messages: [...earlier, asked] });
    assert.equal(breakpointPaths(first), ['tools[1]', 'system[0]', 'messages[1].content[1]', 'messages[2].content[0]']);
    assert.equal((first.messages as unknown[])[2], {
      role: 'user',
      content: [{ type: 'text', text: 'read a', cache_control: { type: 'ephemeral' } }],
    });
    const bare = messagesBody({ model: 'm', messages: [asked], tools: [], stream: false });
    assert.equal(breakpointPaths(bare), ['messages[0].content[0]']);
    assert.is(bare.system, undefined);
  },
);

test('messages: never more than the vendor allows, whatever the conversation holds', () => {
  const long: ChatMessage[] = [];
  for (let i = 0; i < 30; i++)
    long.push({ role: 'user', content: `q${i}` }, { role: 'assistant', content: `a${i}`, tool_calls: [] });
  for (const messages of [
    long,
    [...long, asked, call, result, call, result],
    [{ role: 'system', content: 'Summary.' } as ChatMessage, ...long],
  ]) {
    assert.ok(breakpointPaths(messagesBody({ ...secondCall, messages })).length <= MAX_BREAKPOINTS);
  }
});

test('messages: the second call of a turn reads what the first wrote, through the question', async () => {
  const cache = messagesPromptCache();
  const answer = (text: string) => (request: Parameters<typeof cache.usage>[0]) => {
    const usage = cache.usage(request);
    return 'error' in usage
      ? tooManyBreakpoints(usage.error)
      : message([{ type: 'text', text }], 'end_turn', { ...usage, output_tokens: 3 });
  };
  server.reply(answer('calling'), answer('A.'));
  const client = createMessagesClient({ family: 'messages', apiBase: `${server.url}/v1`, apiKey: 'sk-ant-test' });
  const first = await client.chat({ ...secondCall, messages: [...earlier, asked] });
  const second = await client.chat(secondCall);
  assert.is(first.usage?.cached_input_tokens, undefined);
  // The first call wrote through "read a"; the second reads exactly that prefix (the same blocks, marks aside) and
  // writes the rest, through the tool's result.
  assert.ok((second.usage?.cached_input_tokens ?? 0) > 0, JSON.stringify(second.usage));
  assert.is(second.usage!.cached_input_tokens, first.usage!.cache_write_input_tokens);
  assert.ok((second.usage!.cache_write_input_tokens ?? 0) > 0);
});

test(
  'chat-completions and generate-content: ' +
    'a later call repeats the earlier call byte for byte up to its last message',
  () => {
    const firstCall: ChatRequest = { ...secondCall, messages: [...earlier, asked] };
    const chat = [chatCompletionsBody(firstCall), chatCompletionsBody(secondCall)].map((body) => Buffer.from(body));
    assert.is(commonPrefix(chat[0]!, chat[1]!), chat[0]!.length - 2, 'all but the closing "]}" of the messages');
    const gemini = [generateContentBody(firstCall), generateContentBody(secondCall)].map((body) =>
      Buffer.from(JSON.stringify(body)),
    );
    assert.is(commonPrefix(gemini[0]!, gemini[1]!), gemini[0]!.length - 2, 'all but the closing "]}" of the contents');
  },
);

test.run();
