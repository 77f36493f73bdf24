import { z } from 'zod';
import { bool, list, nonEmptyText, secretList, text } from './fields.js';

export const modelEntrySchema = z.object({
  /** Name agents refer to; repeated names form a round-robin pool. */
  model_name: nonEmptyText(),
  provider: text().optional(),
  /** Native model id sent to the provider. */
  model: nonEmptyText(),
  api_base: text().optional(),
  /** Rotated round-robin; the older single `api_key` is folded in before parsing. */
  api_keys: secretList().default([]),
  enabled: bool().default(true),
  streaming: z.object({ enabled: bool().default(false) }).prefault({}),
  extra_body: z.record(z.string(), z.unknown()).optional(),
  auth_method: text().optional(),
});

export const modelListSchema = list(modelEntrySchema).default([]);
