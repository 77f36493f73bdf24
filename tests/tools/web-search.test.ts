import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { SearchEngineName, SearchEngineOptions, WebSearchOptions } from '../../adapters/tools/options.js';
import { DEFAULT_WEB_SEARCH } from '../../adapters/tools/options.js';
import { dateBefore } from '../../adapters/tools/web/search/search-range.js';
import { webSearchTool } from '../../adapters/tools/web/search/web-search.js';
import { localServer, type LocalServer } from '../support/tools-http.js';
import { contextFor } from '../support/tools-fixture.js';

const NOW = new Date('2026-03-31T12:00:00Z');
const ddgHtml =
  '<div><a class="result__a" href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fexample.org%2Fa&amp;rut=x">' +
  'Example &amp; A</a>' +
  '<a class="result__snippet" href="#">First <b>snippet</b></a></div>' +
  '<div><a class="result__a" href="https://example.org/b">B</a><div class="result__snippet">Second</div></div>';

const answers: Record<string, unknown> = {
  '/res/v1/web/search': {
    web: { results: [{ title: 'Brave hit', url: 'https://b.example/1', description: 'from brave' }] },
  },
  '/chat/completions': {
    choices: [{ message: { content: 'The answer.' } }],
    search_results: [{ title: 'Cited', url: 'https://p.example/1' }],
  },
  '/v2/ai_search/web_search': { references: [{ title: '百度', url: 'https://baidu.example/1', content: '内容' }] },
  '/tavily/search': { results: [{ title: 'Tavily hit', url: 'https://t.example/1', content: 'from tavily' }] },
  '/kagi/search': { data: { search: [{ title: 'Kagi hit', url: 'https://k.example/1', snippet: 'from kagi' }] } },
  '/v1/search/public': { results: [{ title: 'Keenable hit', url: 'https://kn.example/1', description: 'public' }] },
  '/v1/search': { results: [{ title: 'Keenable keyed', url: 'https://kn.example/2', snippet: 'keyed' }] },
  '/exa/search': { results: [{ title: 'Exa hit', url: 'https://e.example/1', text: 'from exa' }] },
  '/searx/search': { results: [{ title: 'Searx hit', url: 'https://s.example/1', content: 'from searxng' }] },
  '/glm': { search_result: [{ title: 'GLM hit', link: 'https://g.example/1', content: 'from glm' }] },
};

let server: LocalServer;
const search = suite('web_search');
search.before(async () => {
  server = await localServer((req, res) => {
    const path = (req.url ?? '').split('?')[0]!;
    if (req.headers['x-subscription-token'] === 'spent') {
      res.writeHead(429, { 'content-type': 'application/json' });
      return res.end('{}');
    }
    if (path === '/html/') {
      res.writeHead(200, { 'content-type': 'text/html' });
      return res.end(ddgHtml);
    }
    res.writeHead(answers[path] ? 200 : 404, { 'content-type': 'application/json' });
    res.end(JSON.stringify(answers[path] ?? { error: 'no route' }));
  });
});
search.after(() => server.close());

function toolFor(name: SearchEngineName, engine: Partial<SearchEngineOptions>, extra: Partial<WebSearchOptions> = {}) {
  return webSearchTool(
    { ...DEFAULT_WEB_SEARCH, provider: name, engines: { [name]: { enabled: true, ...engine } }, ...extra },
    () => NOW,
  );
}

type Case = {
  name: SearchEngineName;
  engine: Partial<SearchEngineOptions>;
  args: { query: string; count?: number; range?: 'd' | 'w' | 'm' | 'y' };
  request: { method: string; url: string; auth?: [string, string]; body?: unknown };
  output: string;
};

const cases = (base: string): Case[] => [
  {
    name: 'brave',
    engine: { apiKey: 'bk', baseUrl: base },
    args: { query: 'tern', count: 3, range: 'w' },
    request: {
      method: 'GET',
      url: '/res/v1/web/search?q=tern&count=3&freshness=pw',
      auth: ['x-subscription-token', 'bk'],
    },
    output: 'Results for: tern (via Brave)\n1. Brave hit\n   https://b.example/1\n   from brave',
  },
  {
    name: 'duckduckgo',
    engine: { baseUrl: base },
    args: { query: 'tern agent', range: 'd' },
    request: { method: 'GET', url: '/html/?q=tern+agent&df=d' },
    output:
      'Results for: tern agent (via DuckDuckGo)\n1. Example & A\n   https://example.org/a\n' +
      '   First snippet\n2. B\n   https://example.org/b\n   Second',
  },
  {
    name: 'perplexity',
    engine: { apiKey: 'pk', baseUrl: base },
    args: { query: 'why', range: 'm' },
    request: {
      method: 'POST',
      url: '/chat/completions',
      auth: ['authorization', 'Bearer pk'],
      body: { model: 'sonar', messages: [{ role: 'user', content: 'why' }], search_recency_filter: 'month' },
    },
    output: 'Results for: why (via Perplexity)\nThe answer.\n\nSources:\n1. Cited\n   https://p.example/1',
  },
  {
    name: 'baidu_search',
    engine: { apiKey: 'bd', baseUrl: base },
    args: { query: '天气' },
    request: {
      method: 'POST',
      url: '/v2/ai_search/web_search',
      auth: ['authorization', 'Bearer bd'],
      body: {
        messages: [{ role: 'user', content: '天气' }],
        search_source: 'baidu_search_v2',
        resource_type_filter: [{ type: 'web', top_k: 5 }],
      },
    },
    output: 'Results for: 天气 (via Baidu AI Search)\n1. 百度\n   https://baidu.example/1\n   内容',
  },
  {
    name: 'tavily',
    engine: { apiKeys: ['tk'], baseUrl: `${base}/tavily/search`, maxResults: 2 },
    args: { query: 'q', range: 'y' },
    request: {
      method: 'POST',
      url: '/tavily/search',
      auth: ['authorization', 'Bearer tk'],
      body: { query: 'q', max_results: 2, search_depth: 'basic', time_range: 'year' },
    },
    output: 'Results for: q (via Tavily)\n1. Tavily hit\n   https://t.example/1\n   from tavily',
  },
  {
    name: 'kagi',
    engine: { apiKey: 'kk', baseUrl: `${base}/kagi` },
    args: { query: 'q', range: 'd' },
    request: {
      method: 'POST',
      url: '/kagi/search',
      auth: ['authorization', 'Bot kk'],
      body: { query: 'q', limit: 5, lens: { time_relative: 'day' } },
    },
    output: 'Results for: q (via Kagi)\n1. Kagi hit\n   https://k.example/1\n   from kagi',
  },
  {
    name: 'kagi',
    engine: { apiKey: 'kk', baseUrl: `${base}/kagi` },
    args: { query: 'q', range: 'y' },
    request: {
      method: 'POST',
      url: '/kagi/search',
      body: { query: 'q', limit: 5, lens: { time_after: '2025-03-31' } },
    },
    output: 'Results for: q (via Kagi)\n1. Kagi hit\n   https://k.example/1\n   from kagi',
  },
  {
    name: 'keenable',
    engine: { baseUrl: base },
    args: { query: 'q', range: 'w' },
    request: {
      method: 'POST',
      url: '/v1/search/public',
      body: { query: 'q', count: 5, published_after: '2026-03-24' },
    },
    output: 'Results for: q (via Keenable)\n1. Keenable hit\n   https://kn.example/1\n   public',
  },
  {
    name: 'keenable',
    engine: { apiKeys: ['kn1'], baseUrl: base },
    args: { query: 'q', range: 'm' },
    request: {
      method: 'POST',
      url: '/v1/search',
      auth: ['x-api-key', 'kn1'],
      body: { query: 'q', count: 5, published_after: '2026-02-28' },
    },
    output: 'Results for: q (via Keenable)\n1. Keenable keyed\n   https://kn.example/2\n   keyed',
  },
  {
    name: 'exa',
    engine: { apiKey: 'ek', baseUrl: `${base}/exa` },
    args: { query: 'q' },
    request: { method: 'POST', url: '/exa/search', auth: ['x-api-key', 'ek'], body: { query: 'q', numResults: 5 } },
    output: 'Results for: q (via Exa)\n1. Exa hit\n   https://e.example/1\n   from exa',
  },
  {
    name: 'searxng',
    engine: { baseUrl: `${base}/searx` },
    args: { query: 'q', range: 'y' },
    request: { method: 'GET', url: '/searx/search?q=q&format=json&categories=general&time_range=year' },
    output: 'Results for: q (via SearXNG)\n1. Searx hit\n   https://s.example/1\n   from searxng',
  },
  {
    name: 'glm_search',
    engine: { apiKey: 'gk', baseUrl: `${base}/glm` },
    args: { query: 'q', count: 4 },
    request: {
      method: 'POST',
      url: '/glm',
      auth: ['authorization', 'Bearer gk'],
      body: { search_query: 'q', search_engine: 'search_std', search_intent: false, count: 4 },
    },
    output: 'Results for: q (via GLM Search)\n1. GLM hit\n   https://g.example/1\n   from glm',
  },
];

search('each of the ten engines is asked in its own wire format and its answer rendered', async () => {
  for (const c of cases(server.url)) {
    server.requests.length = 0;
    const result = await toolFor(c.name, c.engine)!.execute(c.args, contextFor('/tmp'));
    assert.equal(result, { ok: true, content: c.output }, c.name);
    const seen = server.requests[0]!;
    assert.is(`${seen.method} ${seen.url}`, `${c.request.method} ${c.request.url}`, c.name);
    if (c.request.auth) assert.is(seen.headers[c.request.auth[0]], c.request.auth[1], c.name);
    if (c.request.body) assert.equal(JSON.parse(seen.body), c.request.body, c.name);
  }
});

search('a refused key rotates to the next one, and each call starts at the next key', async () => {
  const tool = toolFor('brave', { apiKeys: ['spent', 'good'], baseUrl: server.url })!;
  server.requests.length = 0;
  await tool.execute({ query: 'a' }, contextFor('/tmp'));
  await tool.execute({ query: 'b' }, contextFor('/tmp'));
  assert.equal(
    server.requests.map((r) => r.headers['x-subscription-token']),
    ['spent', 'good', 'good'],
  );
});

search('when every key is refused the result says so', async () => {
  const tool = toolFor('brave', { apiKeys: ['spent', 'spent'], baseUrl: server.url })!;
  const refusal = await tool.execute({ query: 'a' }, contextFor('/tmp')).catch((error: Error) => error.message);
  assert.is(refusal, 'Brave search failed: HTTP 429 (tried 2 keys)');
});

search('engine choice: unusable blocks and an unknown provider', () => {
  assert.is(webSearchTool({ ...DEFAULT_WEB_SEARCH, engines: { brave: { enabled: true } } }), undefined);
  assert.throws(
    () => toolFor('exa', { apiKey: 'k' }),
    (e: Error) =>
      e.message === 'tools.web.provider "exa" is not usable: enable its block and give it an api_key and a base_url',
  );
  assert.throws(
    () => webSearchTool({ ...DEFAULT_WEB_SEARCH, provider: 'bing' as SearchEngineName }),
    (e: Error) =>
      e.message ===
      'tools.web.provider "bing" is not one of brave, duckduckgo, perplexity, ' +
        'baidu_search, tavily, kagi, keenable, exa, searxng, glm_search, gemini, sogou',
  );
});

search('count is capped at 10 and by max_results', () => {
  const spec = toolFor('duckduckgo', {})!.parameters.safeParse({ query: 'x', count: 11 });
  assert.is(spec.success, false);
});
search('range d, w, m, y become a date 1 day, 7 days, 1 month, 1 year before today', () => {
  const cases: [string, 'd' | 'w' | 'm' | 'y', string][] = [
    ['2026-03-31T12:00:00Z', 'd', '2026-03-30'],
    ['2026-03-31T12:00:00Z', 'w', '2026-03-24'],
    ['2026-03-31T12:00:00Z', 'm', '2026-02-28'],
    ['2026-03-31T12:00:00Z', 'y', '2025-03-31'],
    ['2026-01-15T00:00:00Z', 'm', '2025-12-15'],
    ['2028-02-29T08:00:00Z', 'y', '2027-02-28'],
    ['2026-03-01T00:30:00Z', 'd', '2026-02-28'],
  ];
  for (const [now, range, expected] of cases) assert.is(dateBefore(range, new Date(now)), expected, `${now} ${range}`);
});
search.run();
