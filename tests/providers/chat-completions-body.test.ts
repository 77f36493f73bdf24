import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { chatCompletionsBody } from '../../adapters/providers/chat-completions.js';
import type { ChatRequest } from '../../adapters/providers/provider.js';
import type { ChatMessage } from '../../bus/index.js';

const chatCompletionsJson = (request: ChatRequest): string => chatCompletionsBody(request).toString('utf8');

const user: ChatMessage = { role: 'user', content: 'say "hi"\n' };
const askTool: ChatMessage = {
  role: 'assistant',
  content: '',
  tool_calls: [{ id: 'c1', name: 'read', arguments: { path: 'a' } }],
};
const toolAnswer: ChatMessage = { role: 'tool', tool_call_id: 'c1', name: 'read', content: 'ok' };
const reply: ChatMessage = { role: 'assistant', content: 'done', tool_calls: [] };
const spec = { name: 'read', description: 'Reads', parameters: { type: 'object' } };
const toolJson = '{"type":"function","function":{"name":"read","description":"Reads","parameters":{"type":"object"}}}';
const base: ChatRequest = { model: 'm', system: 'be brief', messages: [user], tools: [], stream: false };

const cases: Array<[string, Partial<ChatRequest>, string]> = [
  [
    'system and a user message',
    {},
    '{"model":"m","messages":[{"role":"system","content":"be brief"},{"role":"user","content":"say \\"hi\\"\\n"}]}',
  ],
  ['no system prompt', { system: undefined }, '{"model":"m","messages":[{"role":"user","content":"say \\"hi\\"\\n"}]}'],
  [
    'a tool round trip',
    { system: undefined, messages: [askTool, toolAnswer, reply] },
    '{"model":"m","messages":[{"role":"assistant","content":null,"tool_calls":[{"id":"c1",' +
      '"type":"function","function":{"name":"read","arguments":"{\\"path\\":\\"a\\"}"}}]},' +
      '{"role":"tool","tool_call_id":"c1","content":"ok"},{"role":"assistant","content":"done"}]}',
  ],
  [
    'max tokens and streaming',
    { system: undefined, maxTokens: 64, stream: true },
    '{"model":"m","messages":[{"role":"user","content":"say \\"hi\\"\\n"}],' +
      '"max_tokens":64,"stream":true,"stream_options":{"include_usage":true}}',
  ],
  [
    'tools before the messages',
    { system: undefined, tools: [spec] },
    `{"model":"m","tools":[${toolJson}],"messages":[{"role":"user","content":"say \\"hi\\"\\n"}]}`,
  ],
  [
    'extra_body replacing a field',
    { system: undefined, extraBody: { model: 'other', temperature: 0 } },
    '{"model":"other","messages":[{"role":"user","content":"say \\"hi\\"\\n"}],"temperature":0}',
  ],
  [
    'extra_body adding fields after a system prompt, max tokens and tools',
    { maxTokens: 8, tools: [spec], extraBody: { temperature: 0, top_p: 1, skipped: undefined } },
    `{"model":"m","tools":[${toolJson}],"messages":[{"role":"system","content":"be brief"},` +
      `{"role":"user","content":"say \\"hi\\"\\n"}],"max_tokens":8,"temperature":0,"top_p":1}`,
  ],
  [
    'text beyond ASCII after the tools',
    { system: 'brève 🙂', tools: [spec] },
    `{"model":"m","tools":[${toolJson}],"messages":[{"role":"system","content":"brève 🙂"},` +
      `{"role":"user","content":"say \\"hi\\"\\n"}]}`,
  ],
  [
    'an empty extra_body',
    { system: undefined, extraBody: {} },
    '{"model":"m","messages":[{"role":"user","content":"say \\"hi\\"\\n"}]}',
  ],
  [
    'a system prompt and no messages',
    { messages: [] },
    '{"model":"m","messages":[{"role":"system","content":"be brief"}]}',
  ],
  [
    'extra_body with an integer-like name, which an object puts first',
    { system: undefined, extraBody: { 7: 'x' } },
    '{"7":"x","model":"m","messages":[{"role":"user","content":"say \\"hi\\"\\n"}]}',
  ],
  [
    'extra_body replacing the tools in place',
    { system: undefined, tools: [spec], extraBody: { tools: [] } },
    '{"model":"m","tools":[],"messages":[{"role":"user","content":"say \\"hi\\"\\n"}]}',
  ],
];

for (const [name, change, expected] of cases) {
  test(`the request body with ${name} is exactly the documented JSON, on every call`, () => {
    const request = { ...base, ...change };
    assert.equal([chatCompletionsJson(request), chatCompletionsJson(request)], [expected, expected]);
  });
}

test('a message sent again in a later request is serialized as its own content, whatever surrounds it', () => {
  const later = chatCompletionsJson({ ...base, system: undefined, messages: [reply, user, toolAnswer] });
  assert.is(
    later,
    '{"model":"m","messages":[{"role":"assistant","content":"done"},' +
      '{"role":"user","content":"say \\"hi\\"\\n"},{"role":"tool","tool_call_id":"c1","content":"ok"}]}',
  );
});

test('each request carries its own tools and system prompt, however often the lists and prompts change', () => {
  const other = { name: 'write', description: 'Writes', parameters: { type: 'object' } };
  const otherJson =
    '{"type":"function","function":{"name":"write","description":"Writes","parameters":{"type":"object"}}}';
  const bodies = [[spec], [spec, other], [spec], [other, spec], [spec, other]].map((tools, i) =>
    chatCompletionsJson({ ...base, messages: [], system: `p${i % 2}`, tools }),
  );
  const expected = (system: string, json: string[]) =>
    `{"model":"m","tools":[${json.join(',')}],"messages":[{"role":"system","content":"${system}"}]}`;
  assert.equal(bodies, [
    expected('p0', [toolJson]),
    expected('p1', [toolJson, otherJson]),
    expected('p0', [toolJson]),
    expected('p1', [otherJson, toolJson]),
    expected('p0', [toolJson, otherJson]),
  ]);
});

test('a tool schema is serialized once for every request that sends it, and again when its spec changes', () => {
  let serialized = 0;
  const parameters = {
    toJSON: () => {
      serialized++;
      return { type: 'object' };
    },
  };
  const counted = { name: 'read', description: 'Reads', parameters };
  const tools = [counted, spec];
  const bodies = [
    chatCompletionsJson({ ...base, system: undefined, tools }),
    chatCompletionsJson({ ...base, system: undefined, tools }),
    chatCompletionsJson({ ...base, system: undefined, tools: [counted] }),
  ];
  assert.is(serialized, 1);
  const json = (name: string) =>
    `{"type":"function","function":{"name":"${name}","description":"Reads","parameters":{"type":"object"}}}`;
  const said = '"messages":[{"role":"user","content":"say \\"hi\\"\\n"}]';
  assert.equal(bodies, [
    `{"model":"m","tools":[${json('read')},${toolJson}],${said}}`,
    `{"model":"m","tools":[${json('read')},${toolJson}],${said}}`,
    `{"model":"m","tools":[${json('read')}],${said}}`,
  ]);
  const renamed = chatCompletionsJson({
    ...base,
    messages: [],
    system: undefined,
    tools: [{ ...counted, name: 'look' }],
  });
  assert.is(renamed, `{"model":"m","tools":[${json('look')}],"messages":[]}`);
  assert.is(serialized, 2);
});

const wireOf = (message: ChatMessage): Record<string, unknown> =>
  message.role === 'assistant' && message.tool_calls.length > 0
    ? {
        role: 'assistant',
        content: message.content === '' ? null : message.content,
        tool_calls: message.tool_calls.map((c) => ({
          id: c.id,
          type: 'function',
          function: { name: c.name, arguments: JSON.stringify(c.arguments) },
        })),
      }
    : message.role === 'assistant'
      ? { role: 'assistant', content: message.content }
      : message.role === 'tool'
        ? { role: 'tool', tool_call_id: message.tool_call_id, content: message.content }
        : message;
const plainBody = (request: ChatRequest): string =>
  JSON.stringify({
    model: request.model,
    messages: [
      ...(request.system === undefined ? [] : [{ role: 'system', content: request.system }]),
      ...request.messages.map(wireOf),
    ],
  });

test(
  'a conversation whose lists grow, slide forward, ' +
    'restart and fork is sent exactly as each list is, call after call',
  () => {
    let history: ChatMessage[] = [];
    const sent: string[] = [];
    const expected: string[] = [];
    const send = (request: ChatRequest) => {
      sent.push(chatCompletionsJson(request));
      expected.push(plainBody(request));
    };
    for (let turn = 0; turn < 12; turn++) {
      const asked: ChatMessage = { role: 'user', content: `turn ${turn} «ü»` };
      const first = [...history.slice(-6), asked];
      const system = turn % 3 === 0 ? 'be brief' : `be brief, it is ${turn}`;
      send({ ...base, system, messages: first });
      send({ ...base, system, messages: [...first, askTool, toolAnswer] });
      if (turn % 4 === 3) send({ ...base, system: undefined, messages: [...first.slice(0, 2), reply] });
      history =
        turn === 7
          ? []
          : [
              ...history,
              { role: 'user', content: asked.content },
              { role: 'assistant', content: `done ${turn}`, tool_calls: [] },
            ];
    }
    assert.equal(sent, expected);
  },
);

test('bodies of any size and script are whole and exact, one after another', () => {
  const sizes = [0, 1, 4095, 4096, 20_000, 70_000, 3, 60_000, 65_000, 10];
  const requests = sizes.flatMap((size) =>
    ['a', 'é', '🙂'].map((unit) => ({ ...base, messages: [{ role: 'user' as const, content: unit.repeat(size) }] })),
  );
  assert.equal(requests.map(chatCompletionsJson), requests.map(plainBody));
});

test.run();
