import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';

export const toolCallSchema = lazySchema(() =>
  z.object({
    id: z.string(),
    name: z.string(),
    arguments: z.record(z.string(), z.unknown()),
    /** Opaque provider data that must be sent back unchanged (e.g. generate-content `thoughtSignature`). */
    signature: z.string().optional(),
  }),
);
export type ToolCall = z.infer<ReturnType<typeof toolCallSchema>>;

/** Image types every protocol family takes as an inline image. */
export const imageMimeSchema = lazySchema(() => z.enum(['image/png', 'image/jpeg', 'image/gif', 'image/webp']));

/** An image as a model sees it: the bytes (base64) it was sent, after any downscaling. */
export const imagePartSchema = lazySchema(() => z.object({ mime: imageMimeSchema(), data: z.string() }));
export type ImagePart = z.infer<ReturnType<typeof imagePartSchema>>;

export const chatMessageSchema = lazySchema(() =>
  z.discriminatedUnion('role', [
    z.object({ role: z.literal('system'), content: z.string() }),
    z.object({ role: z.literal('user'), content: z.string() }),
    z.object({
      role: z.literal('assistant'),
      content: z.string(),
      tool_calls: z.array(toolCallSchema()).default([]),
      reasoning: z.string().optional(),
      /** Opaque proof the vendor attached to its reasoning (messages `thinking.signature`), sent back unchanged. */
      reasoning_signature: z.string().optional(),
    }),
    z.object({
      role: z.literal('tool'),
      tool_call_id: z.string(),
      name: z.string(),
      content: z.string(),
      /** Images the tool handed the model (`load_image`); each family sends them in its own shape. */
      images: z.array(imagePartSchema()).optional(),
    }),
  ]),
);
export type ChatMessage = z.infer<ReturnType<typeof chatMessageSchema>>;

export const usageSchema = lazySchema(() =>
  z.object({
    /** Every prompt token, cached ones included. */
    input_tokens: z.number().int().nonnegative(),
    /** Every answer token, reasoning included. */
    output_tokens: z.number().int().nonnegative(),
    /** Of `input_tokens`, those read from the vendor's prompt cache (billed at the cached price). */
    cached_input_tokens: z.number().int().nonnegative().optional(),
    /** Of `input_tokens`, those written to the vendor's prompt cache (messages `cache_creation_input_tokens`). */
    cache_write_input_tokens: z.number().int().nonnegative().optional(),
    /** Of `output_tokens`, those the model spent reasoning. */
    reasoning_tokens: z.number().int().nonnegative().optional(),
  }),
);
export type Usage = z.infer<ReturnType<typeof usageSchema>>;

export const chatResponseSchema = lazySchema(() =>
  z.object({
    text: z.string(),
    reasoning: z.string().optional(),
    reasoning_signature: z.string().optional(),
    tool_calls: z.array(toolCallSchema()),
    usage: usageSchema().optional(),
    finish_reason: z.string().optional(),
  }),
);
export type ChatResponse = z.infer<ReturnType<typeof chatResponseSchema>>;

export const providerErrorCodeSchema = lazySchema(() =>
  z.enum([
    'auth',
    'rate_limit',
    'billing',
    'overloaded',
    'timeout',
    'network',
    'context_overflow',
    'bad_request',
    'too_large',
    'unknown',
  ]),
);
export type ProviderErrorCode = z.infer<ReturnType<typeof providerErrorCodeSchema>>;

export const providerEvents = {
  'provider.requested': lazySchema(() =>
    z.object({
      model_name: z.string(),
      stream: z.boolean(),
      iteration: z.number().int().nonnegative(),
      message_count: z.number().int().nonnegative(),
    }),
  ),
  'provider.chunk': lazySchema(() => z.object({ kind: z.enum(['text', 'reasoning']), delta: z.string() })),
  /** The whole answer: what rerun answers from instead of calling the model. */
  'provider.responded': lazySchema(() => chatResponseSchema().extend({ iteration: z.number().int().nonnegative() })),
  'provider.failed': lazySchema(() =>
    z.object({
      code: providerErrorCodeSchema(),
      message: z.string(),
      status: z.number().int().optional(),
      model_name: z.string(),
      key_index: z.number().int().nonnegative().optional(),
    }),
  ),
  'provider.retried': lazySchema(() =>
    z.object({
      code: providerErrorCodeSchema(),
      attempt: z.number().int().positive(),
      next_model: z.string().optional(),
      delay_ms: z.number().int().nonnegative(),
    }),
  ),
} as const;
