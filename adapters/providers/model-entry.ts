import * as z from 'zod';

/** The narrow view of one `model_list[]` entry the providers need; the config loader maps onto it. */
export const modelEntrySchema = z.object({
  model_name: z.string().min(1),
  provider: z.string().min(1).optional(),
  model: z.string().min(1),
  api_base: z.string().min(1).optional(),
  api_keys: z.array(z.string().min(1)).default([]),
  /** The older single-key form; joins `api_keys` when given. */
  api_key: z.string().min(1).optional(),
  enabled: z.boolean().optional(),
  streaming: z.object({ enabled: z.boolean().optional() }).optional(),
  extra_body: z.record(z.string(), z.unknown()).optional(),
  headers: z.record(z.string(), z.string()).optional(),
  /** An http(s) proxy URL; absent or empty: the environment's `HTTP(S)_PROXY` / `NO_PROXY`. */
  proxy: z.string().optional(),
  /** Seconds to wait for an answer to start (the peer runtime's name). */
  request_timeout: z.number().int().positive().optional(),
  /** The largest answer accepted, in bytes. */
  max_response_bytes: z.number().int().positive().optional(),
  /** How hard the model reasons before answering, in each family's own field. */
  thinking_level: z.enum(['off', 'low', 'medium', 'high', 'xhigh', 'adaptive']).optional(),
  /** github-copilot: `grpc` reaches a running `copilot --headless` server at api_base, `stdio` starts one. */
  connect_mode: z.enum(['grpc', 'stdio']).optional(),
});
export type ModelEntry = z.input<typeof modelEntrySchema>;
