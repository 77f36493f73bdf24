import * as z from 'zod';
import { HOOK_ACTIONS, type ChatMessage, type HookDecision, type HookInput, type ToolCall } from '../../bus/index.js';

/**
 * The process-hook protocol's shapes, kept as the peer runtime writes them (`hook.before_tool` params
 * `{meta, tool, arguments, channel, chat_id}`, results `{for_llm, is_error}`, tool calls in the
 * chat-completions form), so hooks written for it run here; and the answers parsed back into Tern's decisions.
 */

type WireToolCall = { id: string; type: 'function'; function: { name: string; arguments: string } };
type WireMessage = { role: string; content: string; tool_calls?: WireToolCall[]; tool_call_id?: string; name?: string };

const wireCall = (call: ToolCall): WireToolCall => ({
  id: call.id,
  type: 'function',
  function: { name: call.name, arguments: JSON.stringify(call.arguments) },
});

function wireMessage(message: ChatMessage): WireMessage {
  switch (message.role) {
    case 'assistant':
      return message.tool_calls.length > 0
        ? { role: 'assistant', content: message.content, tool_calls: message.tool_calls.map(wireCall) }
        : { role: 'assistant', content: message.content };
    case 'tool':
      return { role: 'tool', content: message.content, tool_call_id: message.tool_call_id, name: message.name };
    default:
      return { role: message.role, content: message.content };
  }
}

function metaOf(input: HookInput): Record<string, unknown> {
  const { meta } = input;
  return {
    agent: meta.agent,
    session: meta.session,
    session_key: meta.session_key,
    turn: meta.turn,
    ...('iteration' in input ? { iteration: input.iteration } : {}),
  };
}

/** The params of `hook.<point>` for this input. */
export function wireParams(input: HookInput): Record<string, unknown> {
  const base = { meta: metaOf(input), channel: input.meta.channel, chat_id: input.meta.chat };
  switch (input.point) {
    case 'before_llm': {
      const { request } = input;
      const messages = [{ role: 'system', content: request.system }, ...request.messages.map(wireMessage)];
      return {
        ...base,
        model: request.model,
        messages,
        tools: request.tools.map((name) => ({ type: 'function', function: { name } })),
      };
    }
    case 'after_llm':
      return {
        ...base,
        model: input.model,
        response: { role: 'assistant', content: input.answer.text, tool_calls: input.answer.tool_calls.map(wireCall) },
      };
    case 'before_tool':
    case 'approve_tool':
      return { ...base, tool: input.call.name, arguments: input.call.arguments };
    case 'after_tool':
      return {
        ...base,
        tool: input.call.name,
        arguments: input.call.arguments,
        result: { for_llm: input.result.content, is_error: !input.result.ok },
        duration: Math.round(input.duration_ms * 1_000_000),
      };
  }
}

/** An answer the protocol does not allow: the caller treats it like a hook that failed. */
export class HookAnswerError extends Error {
  readonly code = 'hook_answer_invalid';
  constructor(message: string) {
    super(message);
    this.name = 'HookAnswerError';
  }
}

const action = z.enum(HOOK_ACTIONS, { error: `action must be one of ${HOOK_ACTIONS.join(', ')}` });
const wireCallSchema = z.union([
  z.object({
    id: z.string(),
    function: z.object({
      name: z.string(),
      arguments: z.union([z.string(), z.record(z.string(), z.unknown())]).optional(),
    }),
  }),
  z.object({ id: z.string(), name: z.string(), arguments: z.record(z.string(), z.unknown()).optional() }),
]);
const wireMessageSchema = z.looseObject({
  role: z.enum(['system', 'user', 'assistant', 'tool']),
  content: z.string().nullable().optional(),
  tool_calls: z.array(wireCallSchema).optional(),
  tool_call_id: z.string().optional(),
  name: z.string().optional(),
});
const toolResultSchema = z.looseObject({ for_llm: z.string().optional(), is_error: z.boolean().optional() });
const llmResponseSchema = z.looseObject({
  content: z.string().nullable().optional(),
  tool_calls: z.array(wireCallSchema).optional(),
});

const base = { action: action.optional(), reason: z.string().optional() };
const answers = {
  before_llm: z.looseObject({
    ...base,
    request: z
      .looseObject({ model: z.string().optional(), messages: z.array(wireMessageSchema).optional() })
      .optional(),
  }),
  // The peer nests the response in its own request object ({model, response: {…}}); a bare response is taken too.
  after_llm: z.looseObject({
    ...base,
    response: z.union([z.looseObject({ response: llmResponseSchema }), llmResponseSchema]).optional(),
  }),
  before_tool: z.looseObject({
    ...base,
    call: z
      .looseObject({ tool: z.string().optional(), arguments: z.record(z.string(), z.unknown()).optional() })
      .optional(),
    result: toolResultSchema.optional(),
  }),
  after_tool: z.looseObject({
    ...base,
    result: z.union([z.looseObject({ result: toolResultSchema }), toolResultSchema]).optional(),
  }),
  approve_tool: z.looseObject({
    approved: z.boolean({ error: 'approved must be true or false' }),
    reason: z.string().optional(),
  }),
};

function parsed<S extends z.ZodType>(schema: S, answer: unknown, point: string): z.infer<S> {
  const result = schema.safeParse(answer);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  throw new HookAnswerError(
    `the answer to hook.${point} is not valid (${issue?.path.join('.') || 'answer'}: ${issue?.message})`,
  );
}

function callFromWire(call: z.infer<typeof wireCallSchema>, known: ReadonlyMap<string, ToolCall>): ToolCall {
  const name = 'function' in call ? call.function.name : call.name;
  const raw = 'function' in call ? call.function.arguments : call.arguments;
  let args: Record<string, unknown> = {};
  if (typeof raw === 'string') {
    try {
      args = raw.trim() === '' ? {} : (JSON.parse(raw) as Record<string, unknown>);
    } catch {
      throw new HookAnswerError(`tool call ${call.id}: arguments are not JSON`);
    }
  } else if (raw) args = raw;
  const signature = known.get(call.id)?.signature;
  return signature === undefined
    ? { id: call.id, name, arguments: args }
    : { id: call.id, name, arguments: args, signature };
}

/**
 * Messages a hook sent back, as chat messages. Leading system messages become the system prompt; the
 * reasoning and provider signatures of an assistant message the hook left as it was are kept.
 */
function messagesFromWire(
  wire: Array<z.infer<typeof wireMessageSchema>>,
  original: readonly ChatMessage[],
): { system?: string; messages: ChatMessage[] } {
  const calls = new Map(
    original.flatMap((m) => (m.role === 'assistant' ? m.tool_calls.map((c) => [c.id, c] as const) : [])),
  );
  const assistants = original.filter((m): m is Extract<ChatMessage, { role: 'assistant' }> => m.role === 'assistant');
  const system: string[] = [];
  const messages: ChatMessage[] = [];
  for (const message of wire) {
    const content = message.content ?? '';
    if (message.role === 'system' && messages.length === 0) system.push(content);
    else if (message.role === 'assistant') {
      const toolCalls = (message.tool_calls ?? []).map((c) => callFromWire(c, calls));
      const same = assistants.find(
        (a) => a.content === content && a.tool_calls.map((c) => c.id).join() === toolCalls.map((c) => c.id).join(),
      );
      messages.push({ ...(same ?? {}), role: 'assistant', content, tool_calls: toolCalls });
    } else if (message.role === 'tool')
      messages.push({ role: 'tool', tool_call_id: message.tool_call_id ?? '', name: message.name ?? '', content });
    else messages.push({ role: message.role, content });
  }
  return system.length > 0 ? { system: system.join('\n\n'), messages } : { messages };
}

const withReason = (decision: HookDecision, reason: string | undefined): HookDecision =>
  reason === undefined ? decision : { ...decision, reason };

/**
 * The hook's answer as a decision. An empty `action` is `continue`; new values count only with `modify` (and the
 * result with `respond`); an approver's `{approved, reason}` becomes `continue` or `deny_tool`.
 */
export function decisionFromWire(input: HookInput, answer: unknown): HookDecision {
  switch (input.point) {
    case 'approve_tool': {
      const { approved, reason } = parsed(answers.approve_tool, answer, input.point);
      return withReason({ action: approved ? 'continue' : 'deny_tool' }, reason);
    }
    case 'before_llm': {
      const { action: act = 'continue', reason, request } = parsed(answers.before_llm, answer, input.point);
      if (act !== 'modify' || !request) return withReason({ action: act }, reason);
      const fromWire = request.messages ? messagesFromWire(request.messages, input.request.messages) : undefined;
      return withReason(
        { action: act, request: { ...(request.model ? { model: request.model } : {}), ...fromWire } },
        reason,
      );
    }
    case 'after_llm': {
      const { action: act = 'continue', reason, response } = parsed(answers.after_llm, answer, input.point);
      if (act !== 'modify' || !response) return withReason({ action: act }, reason);
      const inner =
        'response' in response && typeof response.response === 'object'
          ? (response.response as z.infer<typeof llmResponseSchema>)
          : (response as z.infer<typeof llmResponseSchema>);
      const known = new Map(input.answer.tool_calls.map((c) => [c.id, c]));
      return withReason(
        {
          action: act,
          answer: {
            ...(typeof inner.content === 'string' ? { text: inner.content } : {}),
            ...(inner.tool_calls ? { tool_calls: inner.tool_calls.map((c) => callFromWire(c, known)) } : {}),
          },
        },
        reason,
      );
    }
    case 'before_tool': {
      const { action: act = 'continue', reason, call, result } = parsed(answers.before_tool, answer, input.point);
      if (act === 'respond') {
        if (!result) throw new HookAnswerError('respond needs a result ({"for_llm": "...", "is_error": false})');
        return withReason(
          { action: act, result: { ok: result.is_error !== true, content: result.for_llm ?? '' } },
          reason,
        );
      }
      if (act !== 'modify' || !call) return withReason({ action: act }, reason);
      return withReason(
        {
          action: act,
          call: { ...(call.tool ? { name: call.tool } : {}), ...(call.arguments ? { arguments: call.arguments } : {}) },
        },
        reason,
      );
    }
    case 'after_tool': {
      const { action: act = 'continue', reason, result } = parsed(answers.after_tool, answer, input.point);
      if (act !== 'modify' || !result) return withReason({ action: act }, reason);
      const inner =
        'result' in result && typeof result.result === 'object'
          ? (result.result as z.infer<typeof toolResultSchema>)
          : (result as z.infer<typeof toolResultSchema>);
      return withReason(
        {
          action: act,
          result: {
            ...(inner.for_llm !== undefined ? { content: inner.for_llm } : {}),
            ...(inner.is_error !== undefined ? { ok: !inner.is_error } : {}),
          },
        },
        reason,
      );
    }
  }
}
