import * as z from 'zod/mini';
import { bool, int, oneOf, proxyUrl, secret, secretList, text, textList } from '../fields.js';
import { optional, withDefault } from '../shared.js';

const maxResults = () => withDefault(int(1, 50), 5);
const off = () => withDefault(bool(), false);
const optionalKey = () => optional(secret());
const keyList = () => withDefault(secretList(), []);

/** The search engine blocks: the spec's ten in its order, then the peer's two; the names are the peer's keys. */
export const engineSchemas = {
  brave: z.object({ enabled: off(), api_key: optionalKey(), api_keys: keyList(), max_results: maxResults() }),
  duckduckgo: z.object({ enabled: withDefault(bool(), true), max_results: maxResults() }),
  perplexity: z.object({
    enabled: off(),
    api_key: optionalKey(),
    api_keys: keyList(),
    model: withDefault(text(), 'sonar'),
    max_results: maxResults(),
  }),
  baidu_search: z.object({
    enabled: off(),
    api_key: optionalKey(),
    base_url: withDefault(text(), 'https://qianfan.baidubce.com'),
    max_results: maxResults(),
  }),
  /** `base_url` is the whole search endpoint, as the peer runtime reads it (a proxy or a self-hosted gateway). */
  tavily: z.object({
    enabled: off(),
    api_key: optionalKey(),
    api_keys: keyList(),
    base_url: optional(text()),
    max_results: maxResults(),
  }),
  kagi: z.object({
    enabled: off(),
    api_key: optionalKey(),
    api_keys: keyList(),
    base_url: withDefault(text(), 'https://kagi.com/api/v1'),
    max_results: maxResults(),
  }),
  keenable: z.object({
    enabled: off(),
    api_keys: keyList(),
    base_url: withDefault(text(), 'https://api.keenable.ai'),
    max_results: maxResults(),
  }),
  exa: z.object({ enabled: off(), api_key: optionalKey(), base_url: optional(text()), max_results: maxResults() }),
  searxng: z.object({
    enabled: off(),
    base_url: withDefault(text(), 'http://127.0.0.1:8888'),
    max_results: maxResults(),
  }),
  glm_search: z.object({
    enabled: off(),
    api_key: optionalKey(),
    base_url: withDefault(text(), 'https://open.bigmodel.cn/api/paas/v4/web_search'),
    search_engine: withDefault(text(), 'search_std'),
    max_results: maxResults(),
  }),
  /** The peer runtime's two engines beyond the spec's ten: Gemini grounded on Google Search, and Sogou (no key). */
  gemini: z.object({
    enabled: off(),
    api_key: optionalKey(),
    api_keys: keyList(),
    model: withDefault(text(), 'gemini-2.5-flash'),
    base_url: withDefault(text(), 'https://generativelanguage.googleapis.com/v1beta'),
    max_results: maxResults(),
  }),
  sogou: z.object({
    enabled: off(),
    base_url: withDefault(text(), 'https://wap.sogou.com'),
    max_results: maxResults(),
  }),
} as const;

export const ENGINE_NAMES = Object.keys(engineSchemas) as [
  keyof typeof engineSchemas,
  ...(keyof typeof engineSchemas)[],
];

export const webSchema = z.object({
  enabled: withDefault(bool(), true),
  provider: optional(oneOf(ENGINE_NAMES)),
  prefer_native: withDefault(bool(), true),
  private_host_whitelist: withDefault(textList(), []),
  proxy: optional(proxyUrl()),
  fetch: z.prefault(z.object({ enabled: withDefault(bool(), true) }), {}),
  fetch_limit_bytes: withDefault(int(1), 10485760),
  format: withDefault(oneOf(['plaintext', 'markdown']), 'plaintext'),
  brave: z.prefault(engineSchemas.brave, {}),
  duckduckgo: z.prefault(engineSchemas.duckduckgo, {}),
  perplexity: z.prefault(engineSchemas.perplexity, {}),
  baidu_search: z.prefault(engineSchemas.baidu_search, {}),
  tavily: z.prefault(engineSchemas.tavily, {}),
  kagi: z.prefault(engineSchemas.kagi, {}),
  keenable: z.prefault(engineSchemas.keenable, {}),
  exa: z.prefault(engineSchemas.exa, {}),
  searxng: z.prefault(engineSchemas.searxng, {}),
  glm_search: z.prefault(engineSchemas.glm_search, {}),
  gemini: z.prefault(engineSchemas.gemini, {}),
  sogou: z.prefault(engineSchemas.sogou, {}),
});
