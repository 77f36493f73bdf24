import { z } from 'zod';
import { bool, int, oneOf, secret, secretList, text, textList } from '../fields.js';

const maxResults = () => int(1, 50).default(5);

/** The ten search engine blocks, in the spec's order; the names are the peer runtime's keys. */
export const engineSchemas = {
  brave: z.object({ enabled: bool().default(false), api_key: secret().optional(), api_keys: secretList().default([]), max_results: maxResults() }),
  duckduckgo: z.object({ enabled: bool().default(true), max_results: maxResults() }),
  perplexity: z.object({ enabled: bool().default(false), api_key: secret().optional(), model: text().default('sonar'), max_results: maxResults() }),
  baidu_search: z.object({
    enabled: bool().default(false),
    api_key: secret().optional(),
    base_url: text().default('https://qianfan.baidubce.com'),
    max_results: maxResults(),
  }),
  tavily: z.object({ enabled: bool().default(false), api_key: secret().optional(), api_keys: secretList().default([]), max_results: maxResults() }),
  kagi: z.object({
    enabled: bool().default(false),
    api_key: secret().optional(),
    api_keys: secretList().default([]),
    base_url: text().default('https://kagi.com/api/v1'),
    max_results: maxResults(),
  }),
  keenable: z.object({
    enabled: bool().default(false),
    api_keys: secretList().default([]),
    base_url: text().default('https://api.keenable.ai'),
    max_results: maxResults(),
  }),
  exa: z.object({ enabled: bool().default(false), api_key: secret().optional(), base_url: text().optional(), max_results: maxResults() }),
  searxng: z.object({ enabled: bool().default(false), base_url: text().default('http://127.0.0.1:8888'), max_results: maxResults() }),
  glm_search: z.object({
    enabled: bool().default(false),
    api_key: secret().optional(),
    base_url: text().default('https://open.bigmodel.cn/api/paas/v4/web_search'),
    search_engine: text().default('search_std'),
    max_results: maxResults(),
  }),
} as const;

export const ENGINE_NAMES = Object.keys(engineSchemas) as [keyof typeof engineSchemas, ...(keyof typeof engineSchemas)[]];

export const webSchema = z.object({
  enabled: bool().default(true),
  provider: oneOf(ENGINE_NAMES).optional(),
  prefer_native: bool().default(true),
  private_host_whitelist: textList().default([]),
  proxy: text().optional(),
  fetch: z.object({ enabled: bool().default(true) }).prefault({}),
  fetch_limit_bytes: int(1).default(10485760),
  format: oneOf(['plaintext', 'markdown']).default('plaintext'),
  brave: engineSchemas.brave.prefault({}),
  duckduckgo: engineSchemas.duckduckgo.prefault({}),
  perplexity: engineSchemas.perplexity.prefault({}),
  baidu_search: engineSchemas.baidu_search.prefault({}),
  tavily: engineSchemas.tavily.prefault({}),
  kagi: engineSchemas.kagi.prefault({}),
  keenable: engineSchemas.keenable.prefault({}),
  exa: engineSchemas.exa.prefault({}),
  searxng: engineSchemas.searxng.prefault({}),
  glm_search: engineSchemas.glm_search.prefault({}),
});
