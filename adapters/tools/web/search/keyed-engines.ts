import * as z from 'zod';
import { joinUrl, type SearchEngine } from './engine.js';
import { dateBefore, RANGE_WORDS } from './search-range.js';

const hits = <K extends string>(snippet: K) =>
  z.array(
    z.object({ title: z.string().default(''), url: z.string(), [snippet]: z.string().default('') } as Record<
      'title' | 'url' | K,
      z.ZodType<string>
    >),
  );

const braveBody = z.object({ web: z.object({ results: hits('description') }).optional() });
const tavilyBody = z.object({ results: hits('content') });
const kagiBody = z.object({ data: z.object({ search: hits('snippet') }) });
const exaBody = z.object({
  results: z.array(z.object({ title: z.string().nullish(), url: z.string(), text: z.string().nullish() })),
});
const glmBody = z.object({
  search_result: z
    .array(z.object({ title: z.string().default(''), link: z.string(), content: z.string().default('') }))
    .default([]),
});
const baiduBody = z.object({
  references: z
    .array(z.object({ title: z.string().default(''), url: z.string(), content: z.string().default('') }))
    .default([]),
});
const perplexityBody = z.object({
  choices: z.array(z.object({ message: z.object({ content: z.string() }) })).min(1),
  search_results: z.array(z.object({ title: z.string().default(''), url: z.string() })).optional(),
  citations: z.array(z.string()).optional(),
});

const bearer = (key?: string) => ({ authorization: `Bearer ${key ?? ''}`, 'content-type': 'application/json' });

/** Brave Search API: GET `/res/v1/web/search`, key in `X-Subscription-Token`, `freshness` pd/pw/pm/py. */
export const brave: SearchEngine = {
  name: 'brave',
  label: 'Brave',
  keys: 'required',
  defaultBaseUrl: 'https://api.search.brave.com',
  request: ({ baseUrl, query, count, range, key }) => {
    const params = new URLSearchParams({ q: query, count: String(count) });
    if (range) params.set('freshness', `p${range}`);
    return {
      method: 'GET',
      url: joinUrl(baseUrl, `/res/v1/web/search?${params}`),
      headers: { accept: 'application/json', 'x-subscription-token': key ?? '' },
    };
  },
  parse: (body) => ({
    hits: (braveBody.parse(body).web?.results ?? []).map((r) => ({
      title: r.title,
      url: r.url,
      snippet: r.description,
    })),
  }),
};

/** Perplexity: a chat completion with the `sonar` models, answering with citations. */
export const perplexity: SearchEngine = {
  name: 'perplexity',
  label: 'Perplexity',
  keys: 'required',
  defaultBaseUrl: 'https://api.perplexity.ai',
  request: ({ baseUrl, query, range, key, options }) => ({
    method: 'POST',
    url: joinUrl(baseUrl, '/chat/completions'),
    headers: bearer(key),
    body: {
      model: options.model ?? 'sonar',
      messages: [{ role: 'user', content: query }],
      ...(range ? { search_recency_filter: RANGE_WORDS[range] } : {}),
    },
  }),
  parse: (body) => {
    const parsed = perplexityBody.parse(body);
    const cited = parsed.search_results ?? (parsed.citations ?? []).map((url) => ({ title: url, url }));
    return {
      answer: parsed.choices[0]!.message.content,
      hits: cited.map((c) => ({ title: c.title, url: c.url, snippet: '' })),
    };
  },
};

/** Baidu Qianfan AI search, tuned for Chinese queries. It has no one-day window, so `d` asks for a week. */
export const baiduSearch: SearchEngine = {
  name: 'baidu_search',
  label: 'Baidu AI Search',
  keys: 'required',
  defaultBaseUrl: 'https://qianfan.baidubce.com',
  request: ({ baseUrl, query, count, range, key }) => ({
    method: 'POST',
    url: joinUrl(baseUrl, '/v2/ai_search/web_search'),
    headers: bearer(key),
    body: {
      messages: [{ role: 'user', content: query }],
      search_source: 'baidu_search_v2',
      resource_type_filter: [{ type: 'web', top_k: count }],
      ...(range ? { search_recency_filter: range === 'd' ? 'week' : RANGE_WORDS[range] } : {}),
    },
  }),
  parse: (body) => ({
    hits: baiduBody.parse(body).references.map((r) => ({ title: r.title, url: r.url, snippet: r.content })),
  }),
};

/** Tavily: POST to the search endpoint (`base_url` is all of it, as the peer runtime reads it), `time_range`. */
export const tavily: SearchEngine = {
  name: 'tavily',
  label: 'Tavily',
  keys: 'required',
  defaultBaseUrl: 'https://api.tavily.com/search',
  request: ({ baseUrl, query, count, range, key }) => ({
    method: 'POST',
    url: baseUrl,
    headers: bearer(key),
    body: { query, max_results: count, search_depth: 'basic', ...(range ? { time_range: RANGE_WORDS[range] } : {}) },
  }),
  parse: (body) => ({
    hits: tavilyBody.parse(body).results.map((r) => ({ title: r.title, url: r.url, snippet: r.content })),
  }),
};

/** Kagi: POST `/search` reading `data.search`; ranges are lenses (`time_relative`, or `time_after` for a year). */
export const kagi: SearchEngine = {
  name: 'kagi',
  label: 'Kagi',
  keys: 'required',
  defaultBaseUrl: 'https://kagi.com/api/v1',
  request: ({ baseUrl, query, count, range, key, now }) => {
    const lens =
      range === undefined
        ? undefined
        : range === 'y'
          ? { time_after: dateBefore('y', now) }
          : { time_relative: RANGE_WORDS[range] };
    return {
      method: 'POST',
      url: joinUrl(baseUrl, '/search'),
      headers: { authorization: `Bot ${key ?? ''}`, 'content-type': 'application/json' },
      body: { query, limit: count, ...(lens ? { lens } : {}) },
    };
  },
  parse: (body) => ({
    hits: kagiBody.parse(body).data.search.map((r) => ({ title: r.title, url: r.url, snippet: r.snippet })),
  }),
};

/** Exa: POST `/search`, key in `x-api-key`; its `base_url` must be configured. */
export const exa: SearchEngine = {
  name: 'exa',
  label: 'Exa',
  keys: 'required',
  request: ({ baseUrl, query, count, range, key, now }) => ({
    method: 'POST',
    url: joinUrl(baseUrl, '/search'),
    headers: { 'x-api-key': key ?? '', 'content-type': 'application/json' },
    body: { query, numResults: count, ...(range ? { startPublishedDate: dateBefore(range, now) } : {}) },
  }),
  parse: (body) => ({
    hits: exaBody.parse(body).results.map((r) => ({ title: r.title ?? '', url: r.url, snippet: r.text ?? '' })),
  }),
};

/** Zhipu GLM web search: POST to `base_url` with `search_engine` (default `search_std`). */
export const glmSearch: SearchEngine = {
  name: 'glm_search',
  label: 'GLM Search',
  keys: 'required',
  defaultBaseUrl: 'https://open.bigmodel.cn/api/paas/v4/web_search',
  request: ({ baseUrl, query, count, range, key, options }) => ({
    method: 'POST',
    url: baseUrl,
    headers: bearer(key),
    body: {
      search_query: query,
      search_engine: options.searchEngine ?? 'search_std',
      search_intent: false,
      count,
      ...(range ? { search_recency_filter: { d: 'oneDay', w: 'oneWeek', m: 'oneMonth', y: 'oneYear' }[range] } : {}),
    },
  }),
  parse: (body) => ({
    hits: glmBody.parse(body).search_result.map((r) => ({ title: r.title, url: r.link, snippet: r.content })),
  }),
};
