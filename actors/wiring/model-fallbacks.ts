import type { Correlation, EventDraft } from '../../bus/index.js';
import { ProviderError } from '../../adapters/providers/errors.js';
import type { ModelRouter } from '../../adapters/providers/router.js';

/**
 * The router with an agent's fallback models behind its primary: when a model fails after the router's own
 * retries, the next one is asked (each switch reported as `provider.retried`), unless the turn was cancelled or the
 * failure showed text already (a second answer would repeat it).
 */
export function withFallbacks(
  router: ModelRouter,
  fallbacks: readonly string[],
  report: (draft: EventDraft) => void,
): ModelRouter {
  if (fallbacks.length === 0) return router;
  return {
    describe: () => router.describe(),
    async chat(modelName, request, options) {
      const names = [modelName, ...fallbacks.filter((name) => name !== modelName)];
      for (let i = 0; ; i++) {
        let shown = false;
        const onChunk = options?.onChunk;
        const call = onChunk
          ? {
              ...options,
              onChunk: (chunk: Parameters<typeof onChunk>[0]) => {
                shown = true;
                onChunk(chunk);
              },
            }
          : options;
        try {
          return await router.chat(names[i]!, request, call);
        } catch (error) {
          const next = names[i + 1];
          if (!(error instanceof ProviderError) || next === undefined || shown || options?.signal?.aborted) throw error;
          const correlation: Correlation = options?.correlation ?? {};
          report({
            ...correlation,
            type: 'provider.retried',
            data: { code: error.code, attempt: i + 1, next_model: next, delay_ms: 0 },
          });
        }
      }
    },
  };
}
