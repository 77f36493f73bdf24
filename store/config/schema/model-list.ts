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
  model_name: nonEmptyText().check(
    z.describe('Name agents refer to; entries with the same name share the load in turn'),
  ),
  provider: optional(text()).check(
    z.describe('Vendor or protocol family (openai, anthropic, gemini, ollama, …); guessed from the model when empty'),
  ),
  /** Native model id sent to the provider. */
  model: nonEmptyText().check(z.describe('The model id the provider knows, e.g. gpt-4o-mini or claude-sonnet-4-5')),
  api_base: optional(text()).check(z.describe("API root URL; empty, the provider's public endpoint")),
  /** Rotated round-robin; the older single `api_key` is folded in before parsing. */
  api_keys: withDefault(
    secretList().check(z.describe('API keys, used in turn; shown masked, type a new one to replace')),
    [],
  ),
  enabled: withDefault(bool().check(z.describe('Off, agents cannot use this entry')), true),
  streaming: z.prefault(z.object({ enabled: withDefault(bool(), false) }), {}),
  extra_body: optional(z.record(z.string(), z.unknown())),
  auth_method: optional(text()),
  /** Overrides the built-in price of the model (store/usage/prices.ts) for `tern usage` and budgets. */
  pricing: optional(pricingSchema),
  /**
   * A proxy URL (http, https or socks5) for this entry's calls; absent or empty, the environment's `HTTP(S)_PROXY` /
   * `NO_PROXY`.
   */
  proxy: optional(proxyUrl()).check(
    z.describe("Proxy URL (http, https or socks5) for this model's calls; empty, the environment's"),
  ),
  /** Seconds to wait for the first byte of an answer (the peer runtime's name); default 60. */
  request_timeout: optional(int(1, 3600)).check(
    z.describe('Seconds to wait for the first byte of an answer (default 60)'),
  ),
  /** The largest answer accepted, in bytes (default 16 MB); a larger one fails the call. */
  max_response_bytes: optional(int(1024)),
  /** How hard the model reasons (the peer runtime's levels): each family's reasoning field; unset sends none. */
  thinking_level: optional(oneOf(['off', 'low', 'medium', 'high', 'xhigh', 'adaptive'])).check(
    z.describe('How hard the model reasons; unset sends no reasoning setting'),
  ),
  /** github-copilot (the peer runtime's key): `grpc` reaches `copilot --headless` at api_base, `stdio` starts one. */
  connect_mode: optional(oneOf(['grpc', 'stdio'])).check(
    z.describe('github-copilot: grpc reaches copilot --headless at api_base, stdio starts one'),
  ),
});

export const modelListSchema = withDefault(list(modelEntrySchema), []);
