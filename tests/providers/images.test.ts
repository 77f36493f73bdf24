// An image a tool returned (load_image) reaches the model in each family's own shape, byte for byte: chat-completions
// as an `image_url` data URL in a user message after the tool answers, messages as an `image` block with a base64
// source inside the tool_result, generate-content as an `inlineData` part after the functionResponse parts.
import * as assert from 'uvu/assert';
import { createChatCompletionsClient } from '../../adapters/providers/chat-completions.js';
import { createGenerateContentClient } from '../../adapters/providers/generate-content.js';
import { createMessagesClient } from '../../adapters/providers/messages.js';
import type { ChatRequest } from '../../adapters/providers/provider.js';
import type { ChatMessage } from '../../bus/index.js';
import { completion } from '../support/vendor-chat-completions.js';
import { generated } from '../support/vendor-generate-content.js';
import { message } from '../support/vendor-messages.js';
import { vendorSuite } from '../support/vendor-suite.js';

const { test, server } = vendorSuite('images in the three families');

const png = 'iVBORw0KGgo=';
const jpeg = '/9j/4AAQ';
const conversation: ChatMessage[] = [
  { role: 'user', content: 'Compare a.png and b.jpg' },
  {
    role: 'assistant',
    content: '',
    tool_calls: [
      { id: 'c1', name: 'load_image', arguments: { path: 'a.png' } },
      { id: 'c2', name: 'read_file', arguments: { path: 'notes.txt' } },
      { id: 'c3', name: 'load_image', arguments: { path: 'b.jpg' } },
    ],
  },
  {
    role: 'tool',
    tool_call_id: 'c1',
    name: 'load_image',
    content: 'Loaded a.png',
    images: [{ mime: 'image/png', data: png }],
  },
  { role: 'tool', tool_call_id: 'c2', name: 'read_file', content: 'notes' },
  {
    role: 'tool',
    tool_call_id: 'c3',
    name: 'load_image',
    content: 'Loaded b.jpg',
    images: [{ mime: 'image/jpeg', data: jpeg }],
  },
];
const request: ChatRequest = { model: 'm', messages: conversation, tools: [], stream: false };

test(
  'chat-completions: the tool answers stay text, ' +
    'then one user message names each tool and carries its image_url data URLs',
  async () => {
    server.reply(completion({ content: 'Both are charts.' }));
    await createChatCompletionsClient({
      family: 'chat-completions',
      apiBase: `${server.url}/v1`,
      apiKey: 'sk-test',
    }).chat(request);
    assert.is(
      server.requests[0]!.body.toString(),
      '{"model":"m","messages":[{"role":"user","content":"Compare a.png and b.jpg"},' +
        '{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function",' +
        '"function":{"name":"load_image","arguments":"{\\"path\\":\\"a.png\\"}"}},' +
        '{"id":"c2","type":"function","function":{"name":"read_file","arguments":"{\\"path\\":\\"notes.txt\\"}"}},' +
        '{"id":"c3","type":"function","function":{"name":"load_image","arguments":"{\\"path\\":\\"b.jpg\\"}"}}]},' +
        '{"role":"tool","tool_call_id":"c1","content":"Loaded a.png"},' +
        '{"role":"tool","tool_call_id":"c2","content":"notes"},' +
        '{"role":"tool","tool_call_id":"c3","content":"Loaded b.jpg"},' +
        '{"role":"user","content":[{"type":"text","text":"The image from load_image (c1):"},' +
        '{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgo="}},' +
        '{"type":"text","text":"The image from load_image (c3):"},' +
        '{"type":"image_url","image_url":{"url":"data:image/jpeg;base64,/9j/4AAQ"}}]}]}',
    );
  },
);

test('chat-completions: images after a tool run come before the next message of the conversation', async () => {
  server.reply(completion({ content: 'ok' }));
  const later: ChatMessage[] = [
    ...conversation.slice(0, 3),
    { role: 'assistant', content: 'A chart.', tool_calls: [] },
    { role: 'user', content: 'thanks' },
  ];
  await createChatCompletionsClient({
    family: 'chat-completions',
    apiBase: `${server.url}/v1`,
    apiKey: 'sk-test',
  }).chat({ ...request, messages: later });
  const roles = (JSON.parse(server.requests[0]!.body.toString()) as { messages: Array<{ role: string }> }).messages.map(
    (m) => m.role,
  );
  assert.equal(roles, ['user', 'assistant', 'tool', 'user', 'assistant', 'user']);
});

test(
  'messages: each tool_result with images holds its text block, ' + 'then image blocks with a base64 source',
  async () => {
    server.reply(message([{ type: 'text', text: 'Both are charts.' }]));
    await createMessagesClient({ family: 'messages', apiBase: `${server.url}/v1`, apiKey: 'sk-ant-test' }).chat(
      request,
    );
    assert.is(
      server.requests[0]!.body.toString(),
      '{"model":"m","max_tokens":4096,"messages":[{"role":"user","content":"Compare a.png and b.jpg"},' +
        '{"role":"assistant","content":[{"type":"tool_use","id":"c1","name":"load_image",' +
        '"input":{"path":"a.png"}},{"type":"tool_use","id":"c2","name":"read_file","input":{"path":"notes.txt"}},' +
        '{"type":"tool_use","id":"c3","name":"load_image","input":{"path":"b.jpg"}}]},' +
        '{"role":"user","content":[{"type":"tool_result","tool_use_id":"c1",' +
        '"content":[{"type":"text","text":"Loaded a.png"},' +
        '{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}}]},' +
        '{"type":"tool_result","tool_use_id":"c2","content":"notes"},' +
        '{"type":"tool_result","tool_use_id":"c3","content":[{"type":"text","text":"Loaded b.jpg"},' +
        '{"type":"image","source":{"type":"base64","media_type":"image/jpeg",' +
        '"data":"/9j/4AAQ"}}],"cache_control":{"type":"ephemeral"}}]}]}',
    );
  },
);

test(
  'generate-content: the functionResponse parts of the tool run, ' +
    'then one inlineData part per image in the same user turn',
  async () => {
    server.reply(generated([{ text: 'Both are charts.' }]));
    await createGenerateContentClient({
      family: 'generate-content',
      apiBase: `${server.url}/v1beta`,
      apiKey: 'AIza-test',
    }).chat(request);
    assert.is(server.requests[0]!.url, '/v1beta/models/m:generateContent');
    assert.is(
      server.requests[0]!.body.toString(),
      '{"contents":[{"role":"user","parts":[{"text":"Compare a.png and b.jpg"}]},' +
        '{"role":"model","parts":[{"functionCall":{"name":"load_image","args":{"path":"a.png"}}},' +
        '{"functionCall":{"name":"read_file","args":{"path":"notes.txt"}}},' +
        '{"functionCall":{"name":"load_image","args":{"path":"b.jpg"}}}]},' +
        '{"role":"user","parts":[{"functionResponse":{"name":"load_image","response":{"result":"Loaded a.png"}}},' +
        '{"functionResponse":{"name":"read_file","response":{"result":"notes"}}},' +
        '{"functionResponse":{"name":"load_image","response":{"result":"Loaded b.jpg"}}},' +
        '{"inlineData":{"mimeType":"image/png","data":"iVBORw0KGgo="}},' +
        '{"inlineData":{"mimeType":"image/jpeg","data":"/9j/4AAQ"}}]}]}',
    );
  },
);

test.run();
