import { z } from 'zod/mini';
import { bool, list, nonEmptyText, secretList, text } from './fields.js';
import { optional, withDefault } from './shared.js';

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
});

export const modelListSchema = withDefault(list(modelEntrySchema), []);
