// tools.web.prefer_native in real turns: a model whose family searches by itself gets the vendor's search tool in
// place of web_search and the configured engine is never asked; elsewhere (or when the vendor refuses its own search)
// web_search runs on the configured engine.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTurnFixture } from '../support/turn-fixture.js';
import { completion } from '../support/vendor-chat-completions.js';
import { generated } from '../support/vendor-generate-content.js';
import { message } from '../support/vendor-messages.js';
import { json, startVendorServer, type RecordedRequest, type VendorServer } from '../support/vendor-server.js';

type Tools = Array<Record<string, unknown>>;
const toolsOf = (request: RecordedRequest | undefined): Tools =>
  (JSON.parse(request!.body.toString()) as { tools?: Tools }).tools ?? [];
const names = (tools: Tools): string[] =>
  tools.map((t) => String(t.name ?? (t.function as { name?: string } | undefined)?.name ?? Object.keys(t)[0]));

const NATIVE = { type: 'web_search_20250305', name: 'web_search', max_uses: 5 };
const claude = { model_name: 'claude', provider: 'anthropic', model: 'claude-test' };

/** A searxng engine on loopback, so a search it serves is seen. */
async function engine(): Promise<VendorServer> {
  const server = await startVendorServer();
  server.reply(
    json({ results: [{ title: 'Tern 1.0 released', url: 'https://example.org/tern', content: 'Tern 1.0 is out.' }] }),
  );
  return server;
}
const webTools = (engineUrl: string, preferNative = true) => ({
  web: { provider: 'searxng', prefer_native: preferNative, searxng: { enabled: true, base_url: engineUrl } },
});

/** A messages answer that searched on the vendor's side: server_tool_use, its results, then cited text. */
const searchedAnswer = json({
  id: 'msg_01',
  type: 'message',
  role: 'assistant',
  model: 'claude-test',
  stop_reason: 'end_turn',
  stop_sequence: null,
  content: [
    { type: 'server_tool_use', id: 'srvtoolu_01', name: 'web_search', input: { query: 'tern 1.0 release' } },
    {
      type: 'web_search_tool_result',
      tool_use_id: 'srvtoolu_01',
      content: [
        {
          type: 'web_search_result',
          url: 'https://example.org/tern',
          title: 'Tern 1.0',
          encrypted_content: 'EqgfCioIARgB',
          page_age: 'November 20, 2026',
        },
      ],
    },
    {
      type: 'text',
      text: 'Tern 1.0 came out on 20 November.',
      citations: [
        {
          type: 'web_search_result_location',
          url: 'https://example.org/tern',
          title: 'Tern 1.0',
          encrypted_index: 'Eo8BCioIAhgB',
          cited_text: 'Tern 1.0 is out.',
        },
      ],
    },
  ],
  usage: { input_tokens: 2100, output_tokens: 40, server_tool_use: { web_search_requests: 1 } },
});

test(
  "messages family: the vendor's web_search tool goes in place of ours, " +
    'its cited answer is the reply, the engine is never called',
  async () => {
    const search = await engine();
    const f = await startTurnFixture({ defaults: { model: 'claude' }, models: [claude], tools: webTools(search.url) });
    try {
      f.vendor.reply(searchedAnswer);
      const reply = await f.send('When did Tern 1.0 come out?');
      assert.is(reply.kind === 'turn' && reply.text, 'Tern 1.0 came out on 20 November.');
      const tools = toolsOf(f.vendor.requests[0]);
      assert.equal(tools.at(-1), NATIVE);
      assert.is(names(tools).filter((n) => n === 'web_search').length, 1);
      assert.ok(names(tools).includes('web_fetch'), 'the other tools are still offered');
      assert.is(search.requests.length, 0);
    } finally {
      await f.close();
      await search.close();
    }
  },
);

test('prefer_native false: the messages model gets our web_search, which runs on the engine', async () => {
  const search = await engine();
  const f = await startTurnFixture({
    defaults: { model: 'claude' },
    models: [claude],
    tools: webTools(search.url, false),
  });
  try {
    f.vendor.reply(
      message([{ type: 'tool_use', id: 'toolu_1', name: 'web_search', input: { query: 'tern 1.0' } }], 'tool_use'),
      message([{ type: 'text', text: 'It is out.' }]),
    );
    await f.send('Is Tern 1.0 out?');
    const tools = toolsOf(f.vendor.requests[0]);
    assert.ok(!tools.some((t) => t.type === NATIVE.type));
    assert.ok(tools.some((t) => t.name === 'web_search' && t.input_schema));
    assert.is(search.requests.length, 1);
    assert.match(search.requests[0]!.url, /^\/search\?q=tern\+1\.0&format=json/);
  } finally {
    await f.close();
    await search.close();
  }
});

test(
  'chat-completions without a search of its own: ' + 'web_search stays and falls back to the configured engine',
  async () => {
    const search = await engine();
    const f = await startTurnFixture({ tools: webTools(search.url) });
    try {
      f.vendor.reply(
        completion(
          {
            tool_calls: [
              { id: 'c1', type: 'function', function: { name: 'web_search', arguments: '{"query":"tern 1.0"}' } },
            ],
          },
          'tool_calls',
        ),
        completion({ content: 'It is out.' }),
      );
      await f.send('Is Tern 1.0 out?');
      const body = JSON.parse(f.vendor.requests[0]!.body.toString()) as Record<string, unknown>;
      assert.ok(names(body.tools as Tools).includes('web_search'));
      assert.equal([body.plugins, body.enable_search, body.web_search_options], [undefined, undefined, undefined]);
      assert.is(search.requests.length, 1);
      const result = f.events.find((e) => e.type === 'tool.completed')!.data as { content: string };
      assert.match(
        result.content,
        /^Results for: tern 1\.0 \(via SearXNG\)\n1\. Tern 1\.0 released\n {3}https:\/\/example\.org\/tern/,
      );
    } finally {
      await f.close();
      await search.close();
    }
  },
);

test('a vendor that refuses its own search is asked again without it, and later calls use the engine', async () => {
  const search = await engine();
  const f = await startTurnFixture({ defaults: { model: 'claude' }, models: [claude], tools: webTools(search.url) });
  try {
    f.vendor.reply(
      json(
        {
          type: 'error',
          error: { type: 'invalid_request_error', message: 'Web search is not enabled for this organization.' },
        },
        400,
      ),
      message([{ type: 'text', text: 'Hello.' }]),
      message([{ type: 'text', text: 'Again.' }]),
    );
    assert.is((await f.send('hi')).kind === 'turn' && 'ok', 'ok');
    await f.send('again');
    const [refused, retried, later] = f.vendor.requests.map(toolsOf);
    assert.equal(refused!.at(-1), NATIVE);
    for (const tools of [retried!, later!]) {
      assert.ok(!tools.some((t) => t.type === NATIVE.type));
      assert.ok(tools.some((t) => t.name === 'web_search' && t.input_schema));
    }
    assert.equal(
      f.events.filter((e) => e.type === 'turn.completed').map((e) => (e.data as { reply: string }).reply),
      ['Hello.', 'Again.'],
    );
  } finally {
    await f.close();
    await search.close();
  }
});

test(
  'generate-content: google_search beside the function tools for Gemini 3; ' + 'an older Gemini keeps web_search',
  async () => {
    const search = await engine();
    try {
      for (const model of ['gemini-3-pro-preview', 'gemini-2.5-flash']) {
        const f = await startTurnFixture({
          defaults: { model },
          models: [{ model_name: model, provider: 'gemini', model, api_base: '{vendor}/v1beta' }],
          tools: webTools(search.url),
        });
        try {
          f.vendor.reply(generated([{ text: 'Answer.' }]));
          await f.send('news?');
          const tools = toolsOf(f.vendor.requests[0]);
          const declared = (tools[0]!.functionDeclarations as Array<{ name: string }>).map((d) => d.name);
          assert.ok(declared.includes('web_fetch'));
          if (model.startsWith('gemini-3')) {
            assert.equal(tools.slice(1), [{ google_search: {} }]);
            assert.ok(!declared.includes('web_search'));
          } else {
            assert.is(tools.length, 1);
            assert.ok(declared.includes('web_search'));
          }
        } finally {
          await f.close();
        }
      }
      assert.is(search.requests.length, 0);
    } finally {
      await search.close();
    }
  },
);

test.run();
