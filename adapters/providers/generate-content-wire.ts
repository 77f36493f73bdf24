import * as z from 'zod';

const part = z.looseObject({
  text: z.string().optional(),
  thought: z.boolean().optional(),
  thoughtSignature: z.string().optional(),
  functionCall: z
    .looseObject({ id: z.string().optional(), name: z.string(), args: z.record(z.string(), z.unknown()).optional() })
    .optional(),
});
export type WirePart = z.infer<typeof part>;

/** One `GenerateContentResponse`: the whole answer, or one chunk of a stream. */
export const generateResponseSchema = z.looseObject({
  candidates: z
    .array(
      z.looseObject({
        content: z.looseObject({ parts: z.array(part).optional() }).optional(),
        finishReason: z.string().optional(),
      }),
    )
    .optional(),
  usageMetadata: z
    .looseObject({
      promptTokenCount: z.number().optional(),
      candidatesTokenCount: z.number().optional(),
      thoughtsTokenCount: z.number().optional(),
    })
    .optional(),
});
export type GenerateResponse = z.infer<typeof generateResponseSchema>;
