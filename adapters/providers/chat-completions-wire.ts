import * as z from 'zod';

const usage = z.looseObject({ prompt_tokens: z.number(), completion_tokens: z.number() }).nullish();

const toolCall = z.looseObject({
  index: z.number().optional(),
  id: z.string().nullish(),
  function: z.looseObject({ name: z.string().nullish(), arguments: z.string().nullish() }).optional(),
});

const message = z.looseObject({
  content: z.string().nullish(),
  reasoning_content: z.string().nullish(),
  reasoning: z.string().nullish(),
  tool_calls: z.array(toolCall).nullish(),
});

export const completionSchema = z.looseObject({
  choices: z.array(z.looseObject({ message, finish_reason: z.string().nullish() })).min(1),
  usage,
});

export const completionChunkSchema = z.looseObject({
  choices: z.array(z.looseObject({ delta: message.nullish(), finish_reason: z.string().nullish() })).nullish(),
  usage,
});
export type CompletionChunk = z.infer<typeof completionChunkSchema>;
export type WireToolCall = z.infer<typeof toolCall>;
export type WireUsage = z.infer<typeof usage>;
