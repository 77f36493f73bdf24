import * as z from 'zod';
import { joinUrl, type Hit, type SearchEngine } from './engine.js';
import { dateBefore, RANGE_WORDS } from './search-range.js';
import { htmlToPlaintext } from '../html-text.js';

const keenableBody = z.object({
  results: z.array(
    z.object({
      title: z.string().default(''),
      url: z.string(),
      description: z.string().optional(),
      snippet: z.string().optional(),
    }),
  ),
});
const searxngBody = z.object({
  results: z.array(z.object({ title: z.string().default(''), url: z.string(), content: z.string().default('') })),
});

const RESULT_LINK = /<a[^>]*class="[^"]*result__a[^"]*"[^>]*href="([^"]+)"[^>]*>([\s\S]*?)<\/a>/g;
const RESULT_SNIPPET = /<(?:a|div)[^>]*class="[^"]*result__snippet[^"]*"[^>]*>([\s\S]*?)<\/(?:a|div)>/g;

/** DuckDuckGo wraps result links in a redirect; the real address is its `uddg` parameter. */
function realUrl(href: string): string {
  const decoded = href.replace(/&amp;/g, '&');
  try {
    return new URL(decoded, 'https://duckduckgo.com').searchParams.get('uddg') ?? decoded;
  } catch {
    return decoded;
  }
}

function parseDuckDuckGo(html: string): Hit[] {
  const snippets = [...html.matchAll(RESULT_SNIPPET)].map((m) => htmlToPlaintext(m[1]!));
  return [...html.matchAll(RESULT_LINK)].map((m, i) => ({
    url: realUrl(m[1]!),
    title: htmlToPlaintext(m[2]!),
    snippet: snippets[i] ?? '',
  }));
}

/** DuckDuckGo's HTML endpoint: no key; `df` d/w/m/y. */
export const duckduckgo: SearchEngine = {
  name: 'duckduckgo',
  label: 'DuckDuckGo',
  keys: 'none',
  defaultBaseUrl: 'https://html.duckduckgo.com',
  request: ({ baseUrl, query, range }) => {
    const params = new URLSearchParams({ q: query });
    if (range) params.set('df', range);
    return { method: 'GET', url: joinUrl(baseUrl, `/html/?${params}`), headers: { accept: 'text/html' } };
  },
  parse: (body) => ({ hits: parseDuckDuckGo(String(body)) }),
};

/** Keenable: keyless POST `/v1/search/public`, or `/v1/search` with `X-API-Key`; `published_after` for ranges. */
export const keenable: SearchEngine = {
  name: 'keenable',
  label: 'Keenable',
  keys: 'optional',
  defaultBaseUrl: 'https://api.keenable.ai',
  request: ({ baseUrl, query, count, range, key, now }) => ({
    method: 'POST',
    url: joinUrl(baseUrl, key ? '/v1/search' : '/v1/search/public'),
    headers: { 'content-type': 'application/json', ...(key ? { 'x-api-key': key } : {}) },
    body: { query, count, ...(range ? { published_after: dateBefore(range, now) } : {}) },
  }),
  parse: (body) => ({
    hits: keenableBody
      .parse(body)
      .results.map((r) => ({ title: r.title, url: r.url, snippet: r.description ?? r.snippet ?? '' })),
  }),
};

/** SearXNG, self-hosted: GET `/search?format=json`, `time_range` day/week/month/year. */
export const searxng: SearchEngine = {
  name: 'searxng',
  label: 'SearXNG',
  keys: 'none',
  defaultBaseUrl: 'http://localhost:8888',
  request: ({ baseUrl, query, range }) => {
    const params = new URLSearchParams({ q: query, format: 'json', categories: 'general' });
    if (range) params.set('time_range', RANGE_WORDS[range]);
    return { method: 'GET', url: joinUrl(baseUrl, `/search?${params}`), headers: { accept: 'application/json' } };
  },
  parse: (body) => ({
    hits: searxngBody.parse(body).results.map((r) => ({ title: r.title, url: r.url, snippet: r.content })),
  }),
};
