import * as z from 'zod';
import { sendForText, type Route } from '../../../http/client.js';
import {
  SEARCH_ENGINES,
  type SearchEngineName,
  type SearchEngineOptions,
  type WebSearchOptions,
} from '../../options.js';
import { ok, ToolError, type Tool } from '../../tool.js';
import type { EngineAnswer, SearchEngine } from './engine.js';
import { ENGINES } from './engines.js';
import { KeyRing } from './key-ring.js';

const MAX_COUNT = 10;
/** Statuses after which the next key may succeed: this key is refused, throttled, or the vendor hiccuped. */
const RETRY_WITH_NEXT_KEY = (status: number) => status === 401 || status === 403 || status === 429 || status >= 500;

const parameters = z.object({
  query: z.string().min(1).describe('Search text'),
  count: z.number().int().min(1).max(MAX_COUNT).optional().describe('Results wanted, at most 10 (default 10)'),
  range: z
    .enum(['d', 'w', 'm', 'y'])
    .optional()
    .describe('Only results from the past day, week, month or year; omit for any time'),
});

type Chosen = { engine: SearchEngine; options: SearchEngineOptions; baseUrl: string; keys: KeyRing };

function engineOptions(options: WebSearchOptions, name: SearchEngineName): SearchEngineOptions {
  return { enabled: false, maxResults: 5, ...options.engines[name] };
}

function usable(options: WebSearchOptions, name: SearchEngineName): Chosen | undefined {
  const engine = ENGINES[name];
  const config = engineOptions(options, name);
  const keys = config.apiKeys?.length ? config.apiKeys : config.apiKey ? [config.apiKey] : [];
  const baseUrl = config.baseUrl ?? engine.defaultBaseUrl;
  if (!config.enabled || !baseUrl || (engine.keys === 'required' && keys.length === 0)) return undefined;
  return { engine, options: config, baseUrl, keys: new KeyRing(keys) };
}

function choose(options: WebSearchOptions): Chosen | undefined {
  if (!options.provider)
    return (Object.keys(ENGINES) as SearchEngineName[]).map((name) => usable(options, name)).find(Boolean);
  if (!SEARCH_ENGINES.includes(options.provider)) {
    throw new ToolError(
      'invalid_provider',
      `tools.web.provider "${options.provider}" is not one of ${SEARCH_ENGINES.join(', ')}`,
    );
  }
  const chosen = usable(options, options.provider);
  if (!chosen) {
    throw new ToolError(
      'invalid_provider',
      `tools.web.provider "${options.provider}" is not usable: enable its block and give it ` +
        `an api_key${ENGINES[options.provider].defaultBaseUrl ? '' : ' and a base_url'}`,
    );
  }
  return chosen;
}

/** A search engine's answer is a page of results; anything larger is not one. */
const MAX_ANSWER_BYTES = 4 * 1024 * 1024;

async function ask(
  chosen: Chosen,
  request: ReturnType<SearchEngine['request']>,
  options: WebSearchOptions,
  signal: AbortSignal,
): Promise<{ status: number; body: unknown }> {
  const route: Route = { maxAnswerBytes: MAX_ANSWER_BYTES, ...(options.proxy ? { proxy: options.proxy } : {}) };
  const headers = {
    'user-agent': 'tern-web-search',
    ...(request.body ? { 'content-type': 'application/json' } : {}),
    ...request.headers,
  };
  const response = await sendForText(route, {
    url: request.url,
    method: request.method,
    headers,
    signal,
    firstByteTimeoutMs: options.timeoutMs,
    idleTimeoutMs: options.timeoutMs,
    ...(request.body ? { body: JSON.stringify(request.body) } : {}),
  }).catch((error: Error) => {
    if (signal.aborted) throw error;
    throw new ToolError('search_failed', `${chosen.engine.label} search failed: ${error.message}`);
  });
  const isJson = String(response.headers['content-type'] ?? '').includes('json');
  try {
    return { status: response.status, body: isJson ? JSON.parse(response.text) : response.text };
  } catch {
    throw new ToolError('search_failed', `${chosen.engine.label} search failed: the answer was not valid JSON`);
  }
}

function render(query: string, label: string, answer: EngineAnswer, count: number): string {
  const lines = [`Results for: ${query} (via ${label})`];
  if (answer.answer) lines.push(answer.answer, '', 'Sources:');
  answer.hits.slice(0, count).forEach((hit, i) => {
    lines.push(`${i + 1}. ${hit.title || hit.url}`, `   ${hit.url}`);
    if (hit.snippet) lines.push(`   ${hit.snippet}`);
  });
  if (answer.hits.length === 0 && !answer.answer) lines.push('No results.');
  return lines.join('\n');
}

/**
 * The `web_search` tool over the configured engine, or `undefined` when no engine is usable. A model with a search
 * of its own uses that instead while `tools.web.prefer_native` is on (the providers' `searchPlan`). `now` is
 * injectable so date ranges are testable.
 */
export function webSearchTool(
  options: WebSearchOptions,
  now: () => Date = () => new Date(),
): Tool<z.infer<typeof parameters>> | undefined {
  const chosen = choose(options);
  if (!chosen) return undefined;
  const { engine } = chosen;
  return {
    name: 'web_search',
    description: `Search the web (${engine.label}). Returns titles, URLs and snippets.`,
    parameters,
    async execute({ query, count = MAX_COUNT, range }, context) {
      const wanted = Math.min(count, chosen.options.maxResults);
      let last = 0;
      for (const key of chosen.keys.turn()) {
        const request = engine.request({
          query,
          count: wanted,
          range,
          key,
          baseUrl: chosen.baseUrl,
          options: chosen.options,
          now: now(),
        });
        const { status, body } = await ask(chosen, request, options, context.signal);
        last = status;
        if (status >= 200 && status < 300) return ok(render(query, engine.label, parseAnswer(engine, body), wanted));
        if (!RETRY_WITH_NEXT_KEY(status)) break;
      }
      const tried = chosen.keys.size > 1 ? ` (tried ${chosen.keys.size} keys)` : '';
      throw new ToolError('search_failed', `${engine.label} search failed: HTTP ${last}${tried}`);
    },
  };
}

function parseAnswer(engine: SearchEngine, body: unknown): EngineAnswer {
  try {
    return engine.parse(body);
  } catch {
    throw new ToolError('search_failed', `${engine.label} search failed: the answer had an unexpected shape`);
  }
}
