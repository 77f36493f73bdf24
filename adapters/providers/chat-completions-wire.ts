import { z } from 'zod';

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
export type Completion = z.infer<typeof completionSchema>;

// What `completionSchema` accepts, checked in place: an answer in the usual shape is used as parsed, without
// the schema's copy; anything else goes through the schema, which words the error.
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isNumber = (value: unknown): boolean => typeof value === 'number' && Number.isFinite(value);
const isText = (value: unknown): boolean => value === undefined || value === null || typeof value === 'string';

function isToolCall(value: unknown): boolean {
  if (!isObject(value) || !(value.index === undefined || isNumber(value.index)) || !isText(value.id)) return false;
  const call = value.function;
  return call === undefined || (isObject(call) && isText(call.name) && isText(call.arguments));
}

function isChoice(value: unknown): boolean {
  if (!isObject(value) || !isText(value.finish_reason)) return false;
  const { message } = value;
  if (!isObject(message) || !isText(message.content) || !isText(message.reasoning_content) || !isText(message.reasoning)) return false;
  const calls = message.tool_calls;
  return calls === undefined || calls === null || (Array.isArray(calls) && calls.every(isToolCall));
}

function isUsage(value: unknown): boolean {
  return value === undefined || value === null || (isObject(value) && isNumber(value.prompt_tokens) && isNumber(value.completion_tokens));
}

/** True exactly when `completionSchema` would accept `value` as it is. */
export function isCompletion(value: unknown): value is Completion {
  return isObject(value) && Array.isArray(value.choices) && value.choices.length > 0 && value.choices.every(isChoice) && isUsage(value.usage);
}
