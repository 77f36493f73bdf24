import { z } from 'zod/mini';
import { bool, dollars, list, nonEmptyText, secretList, text } from './fields.js';
import { optional, withDefault } from './shared.js';

/** US dollars per million tokens; `cached_input` is what a prompt-cache hit costs (the input price when unset). */
export const pricingSchema = z.object({
  input: dollars(),
  output: dollars(),
  cached_input: optional(dollars()),
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
});

export const modelListSchema = withDefault(list(modelEntrySchema), []);
