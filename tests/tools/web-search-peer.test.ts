// The peer runtime's two extra engines, each against a loopback server speaking its wire format: Sogou's mobile
// results page (no key) and Gemini's generateContent with the google_search tool.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DEFAULT_WEB_SEARCH, type SearchEngineOptions } from '../../adapters/tools/options.js';
import { webSearchTool } from '../../adapters/tools/web/search/web-search.js';
import { searchOptions } from '../../actors/wiring/tools.js';
import { validateConfig } from '../../store/config/index.js';
import { localServer, type LocalServer } from '../support/tools-http.js';
import { contextFor } from '../support/tools-fixture.js';

const sogouHtml =
  '<html><body><div class="vrwrap">' +
  '<a class=resultLink href="/link?url=https%3A%2F%2Fexample.cn%2Fa&amp;from=x" id="sogou_vr_0_0">Tern <em>A</em></a>' +
  '<div class="clamp3">First &amp; best</div></div>' +
  '<div><a class="resultLink" href="/link?url=https%3A%2F%2Fexample.cn%2Fb" id="sogou_vr_0_1">B page</a></div>' +
  '<div><a class=resultLink href="/link?url=https%3A%2F%2Fexample.cn%2Fa" id="sogou_vr_0_2">Same A again</a></div>' +
  '</body></html>';
const geminiAnswer = {
  candidates: [
    {
      content: { role: 'model', parts: [{ text: 'Terns are seabirds. ' }, { text: 'They migrate far.' }] },
      groundingMetadata: {
        webSearchQueries: ['terns'],
        groundingChunks: [
          { web: { uri: 'https://vertexaisearch.example/redirect/1', title: 'birds.example' } },
          { web: { uri: 'https://vertexaisearch.example/redirect/2', title: 'wiki.example' } },
        ],
      },
    },
  ],
};

let server: LocalServer;
const peer = suite('web_search: the peer runtime engines');
peer.before(async () => {
  server = await localServer((req, res) => {
    const path = (req.url ?? '').split('?')[0]!;
    if (path === '/web/searchList.jsp') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      return res.end(sogouHtml);
    }
    if (path === '/v1beta/models/gemini-2.5-flash:generateContent' && req.headers['x-goog-api-key'] === 'gk') {
      res.writeHead(200, { 'content-type': 'application/json; charset=UTF-8' });
      return res.end(JSON.stringify(geminiAnswer));
    }
    res.writeHead(403, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { code: 403, status: 'PERMISSION_DENIED' } }));
  });
});
peer.after(() => server.close());

const toolFor = (name: 'sogou' | 'gemini', engine: Partial<SearchEngineOptions>) =>
  webSearchTool({ ...DEFAULT_WEB_SEARCH, provider: name, engines: { [name]: { enabled: true, ...engine } } });

peer('sogou: its mobile results page is asked with the query and a range in words, its results read', async () => {
  server.requests.length = 0;
  const tool = toolFor('sogou', { baseUrl: server.url, maxResults: 5 })!;
  const result = await tool.execute({ query: 'tern 鸟', range: 'w' }, contextFor('/tmp'));
  assert.equal(result, {
    ok: true,
    content:
      'Results for: tern 鸟 (via Sogou)\n1. Tern A\n   https://example.cn/a\n   First & best\n' +
      '2. B page\n   https://example.cn/b',
  });
  const [seen] = server.requests;
  assert.is(
    `${seen?.method} ${seen?.url}`,
    `GET /web/searchList.jsp?${new URLSearchParams({ keyword: 'tern 鸟 最近一周', v: '5', p: '1' })}`,
  );
});

peer('gemini: generateContent with the google_search tool; its answer first, then its grounding pages', async () => {
  server.requests.length = 0;
  const tool = toolFor('gemini', { apiKeys: ['spent', 'gk'], baseUrl: `${server.url}/v1beta` })!;
  const result = await tool.execute({ query: 'terns', count: 1 }, contextFor('/tmp'));
  assert.equal(result, {
    ok: true,
    content:
      'Results for: terns (via Gemini Google Search)\nTerns are seabirds.\nThey migrate far.\n\nSources:\n' +
      '1. birds.example\n   https://vertexaisearch.example/redirect/1',
  });
  assert.equal(
    server.requests.map((r) => [r.method, r.url, r.headers['x-goog-api-key']]),
    [
      ['POST', '/v1beta/models/gemini-2.5-flash:generateContent', 'spent'],
      ['POST', '/v1beta/models/gemini-2.5-flash:generateContent', 'gk'],
    ],
  );
  assert.equal(JSON.parse(server.requests[1]!.body), {
    contents: [{ role: 'user', parts: [{ text: 'terns' }] }],
    tools: [{ google_search: {} }],
  });
});

peer("the peer's config blocks pick the engine: sogou on with DuckDuckGo off, gemini by name with its model", () => {
  const validation = validateConfig({
    tools: {
      web: {
        provider: 'auto',
        duckduckgo: { enabled: false },
        sogou: { enabled: true, max_results: 3 },
        gemini: { enabled: false, api_key: 'AIza-test', model: 'gemini-2.5-pro', max_results: 4 },
      },
    },
  });
  assert.ok(validation.ok, JSON.stringify(validation));
  if (!validation.ok) return;
  assert.equal(validation.warnings, []);
  const options = { ...DEFAULT_WEB_SEARCH, ...searchOptions(validation.config.tools.web) };
  assert.is(webSearchTool(options)?.description, 'Search the web (Sogou). Returns titles, URLs and snippets.');
  assert.equal(options.engines.gemini, {
    enabled: false,
    maxResults: 4,
    apiKey: 'AIza-test',
    apiKeys: [],
    baseUrl: 'https://generativelanguage.googleapis.com/v1beta',
    model: 'gemini-2.5-pro',
  });
});

peer.run();
