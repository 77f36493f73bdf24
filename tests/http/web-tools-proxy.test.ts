// tools.web.proxy: web_fetch and web_search go out through it; a name that resolves to a private address is still
// refused before the proxy is asked (the proxy, not Tern, resolves the names it is given).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { webSearchTool } from '../../adapters/tools/web/search/web-search.js';
import { startLoopbackProxy, type LoopbackProxy } from '../support/loopback-proxy.js';
import { localServer, type LocalServer } from '../support/tools-http.js';
import { toolsFixture } from '../support/tools-fixture.js';
import { pinnedLookup } from '../support/tools-lookup.js';

const test = suite<{ proxy: LoopbackProxy; site: LocalServer }>('web tools through tools.web.proxy');
test.before(async (ctx) => {
  ctx.proxy = await startLoopbackProxy();
  ctx.site = await localServer((req, res) => {
    if (req.url?.startsWith('/search')) {
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ results: [{ title: 'Hit', url: 'https://x.example/1', content: 'found' }] }));
    } else res.writeHead(200, { 'content-type': 'text/plain' }).end('plain page');
  });
});
test.after(async (ctx) => {
  await ctx.proxy.close();
  await ctx.site.close();
});
test.before.each((ctx) => {
  ctx.proxy.seen.length = 0;
});

test('web_fetch goes through tools.web.proxy', async ({ proxy, site }) => {
  const f = toolsFixture(() => ({ fetch: { privateHostWhitelist: ['127.0.0.1'], proxy: proxy.url } }));
  try {
    assert.equal(await f.call('web_fetch', { url: `${site.url}/page` }), {
      ok: true,
      content: `URL: ${site.url}/page\nStatus: 200\n\nplain page`,
    });
    assert.equal(proxy.seen, [`GET ${site.url}/page`]);
  } finally {
    f.close();
  }
});

test('web_fetch refuses a name that resolves to a private address before the proxy sees it', async ({ proxy }) => {
  const f = toolsFixture(() => ({
    fetch: { proxy: proxy.url, lookup: pinnedLookup({ 'intranet.example': ['10.0.0.5'] }) },
  }));
  try {
    assert.equal(await f.call('web_fetch', { url: 'http://intranet.example/secret' }), {
      ok: false,
      content: 'access denied: intranet.example resolves to a private or local address (10.0.0.5, private)',
    });
    assert.equal(proxy.seen, []);
  } finally {
    f.close();
  }
});

test('web_search asks its engine through tools.web.proxy', async ({ proxy, site }) => {
  const tool = webSearchTool({
    provider: 'searxng',
    engines: { searxng: { enabled: true, baseUrl: site.url, maxResults: 5 } },
    timeoutMs: 5_000,
    proxy: proxy.url,
  });
  const result = await tool!.execute({ query: 'tern' }, { signal: new AbortController().signal } as never);
  assert.equal(result, {
    ok: true,
    content: 'Results for: tern (via SearXNG)\n1. Hit\n   https://x.example/1\n   found',
  });
  assert.equal(proxy.seen, [`GET ${site.url}/search?q=tern&format=json&categories=general`]);
});

test.run();
