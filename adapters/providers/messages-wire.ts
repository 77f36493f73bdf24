import * as z from 'zod';

const usage = z.looseObject({ input_tokens: z.number().nullish(), output_tokens: z.number().nullish() });

const block = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('text'), text: z.string() }),
  z.looseObject({
    type: z.literal('tool_use'),
    id: z.string(),
    name: z.string(),
    input: z.record(z.string(), z.unknown()),
  }),
  z.looseObject({ type: z.literal('thinking'), thinking: z.string(), signature: z.string().optional() }),
  z.looseObject({ type: z.literal('redacted_thinking') }),
  z.looseObject({ type: z.literal('server_tool_use') }),
  z.looseObject({ type: z.literal('web_search_tool_result') }),
]);
export type WireBlock = z.infer<typeof block>;

export const messageSchema = z.looseObject({
  content: z.array(block),
  stop_reason: z.string().nullish(),
  usage: usage.optional(),
});

const delta = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('text_delta'), text: z.string() }),
  z.looseObject({ type: z.literal('input_json_delta'), partial_json: z.string() }),
  z.looseObject({ type: z.literal('thinking_delta'), thinking: z.string() }),
  z.looseObject({ type: z.literal('signature_delta'), signature: z.string() }),
  z.looseObject({ type: z.literal('citations_delta') }),
]);

export const messagesStreamEventSchema = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('message_start'), message: z.looseObject({ usage: usage.optional() }) }),
  z.looseObject({ type: z.literal('content_block_start'), index: z.number(), content_block: block }),
  z.looseObject({ type: z.literal('content_block_delta'), index: z.number(), delta }),
  z.looseObject({ type: z.literal('content_block_stop'), index: z.number() }),
  z.looseObject({
    type: z.literal('message_delta'),
    delta: z.looseObject({ stop_reason: z.string().nullish() }),
    usage: usage.optional(),
  }),
  z.looseObject({ type: z.literal('message_stop') }),
  z.looseObject({ type: z.literal('ping') }),
  z.looseObject({ type: z.literal('error') }),
]);
export type MessagesStreamEvent = z.infer<typeof messagesStreamEventSchema>;
