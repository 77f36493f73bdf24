import { ProviderError } from './errors.js';
import type { ChatRequest, NativeSearch, ProtocolFamily, ProviderClient, ToolSpec } from './provider.js';

export type { NativeSearch } from './provider.js';

/** The name of our own search tool, which the vendor's search replaces. */
export const WEB_SEARCH_TOOL = 'web_search';

/** Gemini models before 3 take `google_search` only in a request without function declarations. */
function geminiGeneration(model: string): number | undefined {
  const match = /gemini-(\d+)/.exec(model);
  return match ? Number(match[1]) : undefined;
}

/**
 * The endpoint's own search, by family and provider: the messages family's server-side `web_search` tool,
 * generate-content's `google_search` grounding tool; of the chat-completions providers, those with a search switch
 * that works beside function tools (OpenRouter's `web` plugin, Qwen's `enable_search`, Zhipu's `web_search` tool).
 */
export function nativeSearchOf(family: ProtocolFamily, provider: string, model: string): NativeSearch | undefined {
  switch (family) {
    case 'messages':
      return {
        kind: 'tool',
        tool: { type: 'web_search_20250305', name: WEB_SEARCH_TOOL, max_uses: 5 },
        withFunctions: true,
      };
    case 'generate-content':
      return { kind: 'tool', tool: { google_search: {} }, withFunctions: (geminiGeneration(model) ?? 0) >= 3 };
    case 'chat-completions':
      if (provider === 'openrouter') return { kind: 'fields', fields: { plugins: [{ id: 'web' }] } };
      if (provider === 'qwen') return { kind: 'fields', fields: { enable_search: true } };
      if (provider === 'zhipu')
        return { kind: 'tool', tool: { type: 'web_search', web_search: { enable: true } }, withFunctions: true };
      return undefined;
    case 'cloud-code':
    case 'copilot':
      return undefined;
  }
}

/** What a request sends: the function tools, and the endpoint's search when the turn wants it and it can go. */
export function searchPlan(
  native: NativeSearch | undefined,
  request: ChatRequest,
): { tools: ToolSpec[]; search?: NativeSearch } {
  if (!request.nativeSearch || !native) return { tools: request.tools };
  const tools = request.tools.filter((t) => t.name !== WEB_SEARCH_TOOL);
  if (native.kind === 'tool' && !native.withFunctions && tools.length > 0) return { tools: request.tools };
  return { tools, search: native };
}

/**
 * A client whose vendor refuses a request with its own search (`bad_request`: not enabled for the account, not for
 * this model) asks again without it, and from then on leaves it out: the turn's `web_search` (the configured engines)
 * takes its place.
 */
export function withSearchFallback(client: ProviderClient, native: NativeSearch | undefined): ProviderClient {
  if (!native) return client;
  let refused = false;
  return {
    family: client.family,
    async chat(request, options) {
      if (refused || !searchPlan(native, request).search)
        return client.chat(refused ? { ...request, nativeSearch: false } : request, options);
      try {
        return await client.chat(request, options);
      } catch (error) {
        if (!(error instanceof ProviderError) || error.code !== 'bad_request') throw error;
        refused = true;
        return client.chat({ ...request, nativeSearch: false }, options);
      }
    },
  };
}
