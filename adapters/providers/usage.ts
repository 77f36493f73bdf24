import type { Usage } from '../../bus/index.js';

// Each family counts tokens its own way; `Usage` is one way: input counts every prompt token (cached ones
// included), output every answer token (reasoning included), and the cached and reasoning shares are named apart.

type Count = number | null | undefined;
const count = (value: unknown): number =>
  typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.round(value) : 0;

function usage(input: number, output: number, cached: number, reasoning: number, written = 0): Usage {
  return {
    input_tokens: input,
    output_tokens: output,
    ...(cached > 0 ? { cached_input_tokens: cached } : {}),
    ...(written > 0 ? { cache_write_input_tokens: written } : {}),
    ...(reasoning > 0 ? { reasoning_tokens: reasoning } : {}),
  };
}

/**
 * Chat completions: `prompt_tokens` includes `prompt_tokens_details.cached_tokens`; reasoning is inside
 * `completion_tokens`.
 */
export function chatCompletionsUsage(wire: {
  prompt_tokens: number;
  completion_tokens: number;
  [key: string]: unknown;
}): Usage {
  const details = (key: string, field: string): number =>
    count((wire[key] as Record<string, unknown> | null | undefined)?.[field]);
  return usage(
    count(wire.prompt_tokens),
    count(wire.completion_tokens),
    details('prompt_tokens_details', 'cached_tokens'),
    details('completion_tokens_details', 'reasoning_tokens'),
  );
}

/**
 * Messages: `input_tokens` leaves out what was read from (`cache_read_input_tokens`) and written to
 * (`cache_creation_input_tokens`) the cache; both are named apart, as each has its own price.
 */
export function messagesUsage(wire: {
  input_tokens?: Count;
  output_tokens?: Count;
  cache_read_input_tokens?: unknown;
  cache_creation_input_tokens?: unknown;
}): Usage | undefined {
  if (wire.input_tokens == null && wire.output_tokens == null) return undefined;
  const read = count(wire.cache_read_input_tokens);
  const written = count(wire.cache_creation_input_tokens);
  return usage(count(wire.input_tokens) + read + written, count(wire.output_tokens), read, 0, written);
}

/**
 * Generate content: thoughts are counted apart from the candidates; `cachedContentTokenCount` is part of the prompt.
 */
export function generateContentUsage(meta: {
  promptTokenCount?: Count;
  candidatesTokenCount?: Count;
  thoughtsTokenCount?: Count;
  cachedContentTokenCount?: unknown;
}): Usage {
  const thoughts = count(meta.thoughtsTokenCount);
  return usage(
    count(meta.promptTokenCount),
    count(meta.candidatesTokenCount) + thoughts,
    count(meta.cachedContentTokenCount),
    thoughts,
  );
}
