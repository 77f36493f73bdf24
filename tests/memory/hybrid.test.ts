import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import { sessionIdOf, validateDraft } from '../../bus/index.js';
import { EventLog } from '../../store/log/event-log.js';
import { runCliAsync } from '../support/cli.js';
import type { TempHome } from '../support/temp-home.js';
import { embeddingReply } from '../support/vendor-embeddings.js';
import { completion } from '../support/vendor-chat-completions.js';
import { json, type RecordedRequest, type VendorServer } from '../support/vendor-server.js';
import { homeAndVendorSuite } from '../support/vendor-suite.js';

const keyOf = (name: string) => `v=1|agent=main|channel=cli|account=default|chat=direct:${name}`;
const settings = {
  model_name: 'fast',
  stream: false,
  max_tool_iterations: 20,
  loop_detection: { enabled: false, repeat_threshold: 3, critical_threshold: 6, window_size: 20 },
};
const START = Date.UTC(2026, 2, 1, 9, 0, 0);

/** Past turns: who said what, and the reply. Only t3 is Bob's. */
const HISTORY: Array<[string, 'alice' | 'bob', string, string]> = [
  ['t1', 'alice', 'My flat in Lisbon is on Rua Augusta 12', 'Noted.'],
  ['t2', 'alice', 'Shall I cook rice and beans tonight?', 'Try a stew.'],
  ['t3', 'bob', 'My apartment has the garage code 4417', 'Kept.'],
  ['t4', 'alice', 'Where can I park the car?', 'In the garage on the corner.'],
  ['t5', 'alice', 'I bought a house plant and a car', 'Nice.'],
];

async function writeHistory(home: TempHome): Promise<void> {
  const log = EventLog.open(home.sessions);
  HISTORY.forEach(([turn, who, user, reply], n) => {
    const session = sessionIdOf(keyOf(who));
    const at = START + n * 60_000;
    const data = { message_id: `m${n}`, channel: 'cli', chat: `direct:${who}`, session_key: keyOf(who) };
    log.append(
      validateDraft({
        agent: 'main',
        session,
        type: 'message.routed',
        at,
        data: { ...data, account: 'default', sender: who, text: user, remote: false, media: [] },
      }),
    );
    const keys = { agent: 'main', session, turn };
    log.append(validateDraft({ ...keys, type: 'turn.started', at, data: { ...data, text: user, settings } }));
    log.append(validateDraft({ ...keys, type: 'turn.completed', at: at + 1000, data: { reply, iterations: 1 } }));
  });
  await log.flushed();
  log.close();
}

/** The chat model `fast`, and `embed` on the vendor as `provider` at `base` (the path under the vendor's address). */
function configure(home: TempHome, vendor: VendorServer, provider: string, base: string, scope = 'private'): void {
  const entry = (model_name: string, provider: string, model: string, path: string) => ({
    model_name,
    provider,
    model,
    api_base: `${vendor.url}${path}`,
    api_keys: ['sk-test-key-0001'],
  });
  writeFileSync(
    join(home.home, 'config.json'),
    JSON.stringify({
      version: 2,
      agents: { defaults: { model: 'fast', memory: { scope, embedding_model: 'embed' } } },
      model_list: [entry('fast', 'openai', 'house-model', '/v1'), entry('embed', provider, 'embed-small', base)],
    }),
  );
}

async function search(home: TempHome, ...args: string[]): Promise<string[]> {
  const out = await runCliAsync(['memory', 'search', ...args, '--json'], home.env);
  assert.equal([out.code, out.stderr], [0, '']);
  return (JSON.parse(out.stdout) as { results: Array<{ turn_id: string }> }).results.map((r) => r.turn_id);
}

const test = homeAndVendorSuite('recall: vectors and hybrid ranking');

test('by meaning: a query none of whose words were said finds the turns about it, in this chat only', async ({
  home,
  vendor,
}) => {
  configure(home, vendor, 'openai', '/v1');
  await writeHistory(home);
  vendor.reply(...Array.from({ length: 10 }, () => embeddingReply));
  // "live" is in no turn: words alone find nothing. By meaning (home), the flat first, then the house plant.
  assert.equal(await search(home, 'where do I live', '--session', 'alice', '--limit', '2'), ['t1', 't5']);
  const paths = vendor.requests.map((r) => `${r.method} ${r.url}`);
  assert.equal(paths, ['POST /v1/embeddings', 'POST /v1/embeddings']);
  const [query, turns] = vendor.requests.map(
    (r) => JSON.parse(r.body.toString()) as { model: string; input: string[] },
  );
  assert.equal(query, { model: 'embed-small', input: ['where do I live'] });
  // Bob's turn is never sent for Alice's search, nor found.
  assert.equal(turns!.input, [
    'My flat in Lisbon is on Rua Augusta 12\nNoted.',
    'Shall I cook rice and beans tonight?\nTry a stew.',
    'Where can I park the car?\nIn the garage on the corner.',
    'I bought a house plant and a car\nNice.',
  ]);
  assert.equal(vendor.requests[0]!.headers.authorization, 'Bearer sk-test-key-0001');
  // Embeddings are cached by content hash: asked again, nothing is sent.
  vendor.reset();
  assert.equal(await search(home, 'where do I live', '--session', 'alice', '--limit', '2'), ['t1', 't5']);
  assert.equal(vendor.requests.length, 0);
});

test('hybrid: words and meaning merged by reciprocal rank fusion; shared scope adds the other chat', async ({
  home,
  vendor,
}) => {
  configure(home, vendor, 'openai', '/v1');
  await writeHistory(home);
  vendor.reply(...Array.from({ length: 10 }, () => embeddingReply));
  // Words: none (only t4's reply says garage, and replies are found by meaning alone). Meaning (cars): t4, t5, t1.
  assert.equal(await search(home, 'garage', '--session', 'alice', '--limit', '3'), ['t4', 't5', 't1']);
  configure(home, vendor, 'openai', '/v1', 'shared');
  // Words: t3 (Bob said garage); meaning: t4, then t3 and t5 (a car and a home each, t3 said first). t3 leads on
  // both rankings (1/61 + 1/62), t4 on one (1/61).
  assert.equal(await search(home, 'garage', '--session', 'alice', '--limit', '3'), ['t3', 't4', 't5']);
});

test("forgetting a sender drops their turns' cached embeddings with them", async ({ home, vendor }) => {
  configure(home, vendor, 'openai', '/v1', 'shared');
  await writeHistory(home);
  vendor.reply(...Array.from({ length: 10 }, () => embeddingReply));
  assert.equal(await search(home, 'garage', '--limit', '3'), ['t3', 't4', 't5']);
  const forgot = await runCliAsync(['log', 'forget', '--sender', 'bob'], home.env);
  assert.is(forgot.code, 0, forgot.stderr);
  vendor.reset();
  vendor.reply(...Array.from({ length: 10 }, () => embeddingReply));
  assert.equal(await search(home, 'garage', '--limit', '3'), ['t4', 't5', 't1']);
  // The cache was emptied: the query and Alice's turns are embedded again; Bob's words are sent nowhere.
  const inputs = vendor.requests.map((r) => (JSON.parse(r.body.toString()) as { input: string[] }).input.length);
  assert.equal(inputs, [1, 4]);
  assert.not.match(vendor.requests.map((r) => r.body.toString()).join(), '4417');
});

test('memory_search in a turn ranks by meaning through the gateway wiring, in this chat only', async ({
  home,
  vendor,
}) => {
  configure(home, vendor, 'openai', '/v1');
  await writeHistory(home);
  const answers = [
    completion(
      {
        tool_calls: [
          {
            id: 'c1',
            type: 'function',
            function: { name: 'memory_search', arguments: '{"query":"where do I live","max_results":2}' },
          },
        ],
      },
      'tool_calls',
    ),
    completion({ content: 'Rua Augusta 12.' }),
  ];
  vendor.reply(
    ...Array.from(
      { length: 8 },
      () => (request: RecordedRequest) =>
        request.url.endsWith('/embeddings') ? embeddingReply(request) : answers.shift()!,
    ),
  );
  const turn = await runCliAsync(['agent', '-m', 'Where do I live?', '--session', 'alice'], home.env);
  assert.equal([turn.code, turn.stdout.trim()], [0, 'Rua Augusta 12.']);
  const log = EventLog.open(home.sessions, { readOnly: true });
  const [done] = log.read({ type: 'tool.completed' });
  log.close();
  const content = done?.type === 'tool.completed' ? done.data.content : '';
  const found = (JSON.parse(content) as { results: Array<{ turn_id: string }> }).results.map((r) => r.turn_id);
  assert.equal(found, ['t1', 't5']);
});

test('while the embedding model fails, recall answers by words and says why', async ({ home, vendor }) => {
  configure(home, vendor, 'openai', '/v1');
  await writeHistory(home);
  vendor.reply(json({ error: { message: 'embeddings are down', type: 'server_error' } }, 500));
  const out = await runCliAsync(['memory', 'search', 'park', '--session', 'alice', '--json'], home.env);
  assert.is(out.code, 0);
  const found = (JSON.parse(out.stdout) as { results: Array<{ turn_id: string }> }).results.map((r) => r.turn_id);
  assert.equal(found, ['t4']);
  assert.match(
    out.stderr,
    /^tern: memory search by meaning failed, words only: model entry embed: .*embeddings are down/,
  );
});

test('generate-content embedContent and batchEmbedContents, and ollama /api/embed, rank alike', async ({
  home,
  vendor,
}) => {
  configure(home, vendor, 'gemini', '/v1beta');
  await writeHistory(home);
  vendor.reply(...Array.from({ length: 10 }, () => embeddingReply));
  assert.equal(await search(home, 'where do I live', '--session', 'alice', '--limit', '2'), ['t1', 't5']);
  assert.equal(
    vendor.requests.map((r) => [r.url, r.headers['x-goog-api-key']]),
    [
      ['/v1beta/models/embed-small:embedContent', 'sk-test-key-0001'],
      ['/v1beta/models/embed-small:batchEmbedContents', 'sk-test-key-0001'],
    ],
  );
  assert.equal(JSON.parse(vendor.requests[1]!.body.toString()).requests[0], {
    model: 'models/embed-small',
    content: { parts: [{ text: 'My flat in Lisbon is on Rua Augusta 12\nNoted.' }] },
  });
  vendor.reset();
  configure(home, vendor, 'ollama', '/v1');
  vendor.reply(...Array.from({ length: 10 }, () => embeddingReply));
  assert.equal(await search(home, 'where do I live', '--session', 'alice', '--limit', '2'), ['t1', 't5']);
  assert.equal(
    vendor.requests.map((r) => `${r.method} ${r.url}`),
    ['POST /api/embed', 'POST /api/embed'],
  );
  assert.equal(JSON.parse(vendor.requests[0]!.body.toString()), { model: 'embed-small', input: ['where do I live'] });
});

test.run();
