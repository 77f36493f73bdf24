import * as z from 'zod/mini';
import { bool, dollars, int, list, nonEmptyText, oneOf, proxyUrl, secretList, text } from './fields.js';
import { optional, withDefault } from './shared.js';

/** US dollars per million tokens; `cached_input` is what a prompt-cache hit costs (the input price when unset). */
export const pricingSchema = z.object({
  input: dollars(),
  output: dollars(),
  cached_input: optional(dollars()),
  /** Input written to the prompt cache; absent, the input price. */
  cache_write_input: optional(dollars()),
});

export const modelEntrySchema = z.object({
  /** Name agents refer to; repeated names form a round-robin pool. */
  model_name: nonEmptyText(),
  provider: optional(text()),
  /** Native model id sent to the provider. */
  model: nonEmptyText(),
  api_base: optional(text()),
  /** Rotated round-robin; the older single `api_key` is folded in before parsing. */
  api_keys: withDefault(secretList(), []),
  enabled: withDefault(bool(), true),
  streaming: z.prefault(z.object({ enabled: withDefault(bool(), false) }), {}),
  extra_body: optional(z.record(z.string(), z.unknown())),
  auth_method: optional(text()),
  /** Overrides the built-in price of the model (store/usage/prices.ts) for `tern usage` and budgets. */
  pricing: optional(pricingSchema),
  /** A proxy URL (http, https or socks5) for this entry's calls; absent or empty, the environment's `HTTP(S)_PROXY` / `NO_PROXY`. */
  proxy: optional(proxyUrl()),
  /** Seconds to wait for the first byte of an answer (the peer runtime's name); default 60. */
  request_timeout: optional(int(1, 3600)),
  /** The largest answer accepted, in bytes (default 16 MB); a larger one fails the call. */
  max_response_bytes: optional(int(1024)),
  /** How hard the model reasons (the peer runtime's levels): each family's reasoning field; unset sends none. */
  thinking_level: optional(oneOf(['off', 'low', 'medium', 'high', 'xhigh', 'adaptive'])),
  /** github-copilot (the peer runtime's key): `grpc` reaches `copilot --headless` at api_base, `stdio` starts one. */
  connect_mode: optional(oneOf(['grpc', 'stdio'])),
});

export const modelListSchema = withDefault(list(modelEntrySchema), []);
