// The peer runtime's `tools.web.tavily.base_url` and `tools.web.perplexity.api_keys`, from the config file to the wire.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { searchOptions } from '../../actors/wiring/tools.js';
import { DEFAULT_WEB_SEARCH } from '../../adapters/tools/options.js';
import { webSearchTool } from '../../adapters/tools/web/search/web-search.js';
import { loadConfig } from '../../store/config/index.js';
import { tempHome } from '../config/home.js';
import { localServer } from '../support/tools-http.js';
import { contextFor } from '../support/tools-fixture.js';

const ANSWERS: Record<string, unknown> = {
  '/gateway/tavily/search': { results: [{ title: 'Tavily hit', url: 'https://t.example/1', content: 'via base_url' }] },
  '/chat/completions': { choices: [{ message: { content: 'The answer.' } }], citations: ['https://p.example/1'] },
};

/** The web_search tool as the config file sets it up; `perplexityAt` stands in for Perplexity's fixed address. */
async function toolFrom(web: Record<string, unknown>, perplexityAt?: string) {
  const h = tempHome();
  h.writeConfig({ version: 3, tools: { web } });
  const { config, warnings } = loadConfig({ env: h.env });
  h.remove();
  const options = { ...DEFAULT_WEB_SEARCH, ...searchOptions(config.tools.web) };
  if (perplexityAt) options.engines.perplexity!.baseUrl = perplexityAt;
  return { tool: webSearchTool(options, () => new Date('2026-03-31T12:00:00Z'))!, warnings };
}

test('tools.web.tavily.base_url is the whole search endpoint the tool posts to', async () => {
  const server = await localServer((req, res) => {
    res.writeHead(ANSWERS[req.url ?? ''] ? 200 : 404, { 'content-type': 'application/json' });
    res.end(JSON.stringify(ANSWERS[req.url ?? ''] ?? {}));
  });
  try {
    const tavily = { enabled: true, api_key: 'tvly-peer-0000001', base_url: `${server.url}/gateway/tavily/search` };
    const { tool, warnings } = await toolFrom({ provider: 'tavily', tavily });
    assert.equal(warnings, []);
    const result = await tool.execute({ query: 'q' }, contextFor('/tmp'));
    assert.equal(result, {
      ok: true,
      content: 'Results for: q (via Tavily)\n1. Tavily hit\n   https://t.example/1\n   via base_url',
    });
    assert.equal(
      server.requests.map((r) => `${r.method} ${r.url} ${r.headers.authorization}`),
      ['POST /gateway/tavily/search Bearer tvly-peer-0000001'],
    );
  } finally {
    await server.close();
  }
});

test('tools.web.perplexity.api_keys rotate: a refused key gives way, each call starts at the next', async () => {
  const server = await localServer((req, res) => {
    const refused = req.headers.authorization === 'Bearer pplx-spent-000001';
    res.writeHead(refused ? 401 : 200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(refused ? { error: 'invalid key' } : ANSWERS['/chat/completions']));
  });
  try {
    const perplexity = { enabled: true, api_keys: ['pplx-spent-000001', 'pplx-good-0000001'] };
    const { tool, warnings } = await toolFrom({ provider: 'perplexity', perplexity }, server.url);
    assert.equal(warnings, []);
    await tool.execute({ query: 'a' }, contextFor('/tmp'));
    await tool.execute({ query: 'b' }, contextFor('/tmp'));
    assert.equal(
      server.requests.map((r) => r.headers.authorization),
      ['Bearer pplx-spent-000001', 'Bearer pplx-good-0000001', 'Bearer pplx-good-0000001'],
    );
  } finally {
    await server.close();
  }
});

test.run();
