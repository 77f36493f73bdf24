import type { ChatMessage, ChatResponse, ToolCall, Usage } from '../../bus/index.js';
import { messagesUsage } from './usage.js';
import { normalizeAnswer } from './answer-quirks.js';
import { isRecord, parseArguments } from './arguments.js';
import { classifyFailure } from './classify.js';
import { parseJson, postJson, postSse } from './http.js';
import { messageSchema, messagesStreamEventSchema, type MessagesStreamEvent, type WireBlock } from './messages-wire.js';
import {
  callOf,
  THINKING_BUDGETS,
  type CallOptions,
  type ChatRequest,
  type EndpointConfig,
  type ProviderClient,
} from './provider.js';
import { searchPlan, type NativeSearch } from './native-search.js';
import { headersFor, parseWire, streamEndedEarly } from './wire.js';

export const anthropicVersion = '2023-06-01';
const defaultMaxTokens = 4096;
const knownEvents: ReadonlySet<string> = new Set(messagesStreamEventSchema.options.map((o) => o.shape.type.value));

type WireMessage = { role: 'user' | 'assistant'; content: string | Array<Record<string, unknown>> };

function assistantBlocks(message: Extract<ChatMessage, { role: 'assistant' }>): Array<Record<string, unknown>> {
  const blocks: Array<Record<string, unknown>> = [];
  // Thinking can only go back with the signature the vendor gave it; without one it is dropped.
  if (message.reasoning && message.reasoning_signature) {
    blocks.push({ type: 'thinking', thinking: message.reasoning, signature: message.reasoning_signature });
  }
  if (message.content !== '') blocks.push({ type: 'text', text: message.content });
  for (const call of message.tool_calls)
    blocks.push({ type: 'tool_use', id: call.id, name: call.name, input: call.arguments });
  return blocks;
}

/** A tool's answer; the images it returned follow its text as `image` blocks with a base64 source. */
function toolResultBlock(message: Extract<ChatMessage, { role: 'tool' }>): Record<string, unknown> {
  if (!message.images?.length)
    return { type: 'tool_result', tool_use_id: message.tool_call_id, content: message.content };
  const images = message.images.map((image) => ({
    type: 'image',
    source: { type: 'base64', media_type: image.mime, data: image.data },
  }));
  return {
    type: 'tool_result',
    tool_use_id: message.tool_call_id,
    content: [{ type: 'text', text: message.content }, ...images],
  };
}

/** Tool results go back as `tool_result` blocks in one user message following the assistant's `tool_use`. */
function wireMessages(messages: ChatMessage[]): WireMessage[] {
  const out: WireMessage[] = [];
  for (const message of messages) {
    if (message.role === 'user') out.push({ role: 'user', content: message.content });
    else if (message.role === 'assistant') out.push({ role: 'assistant', content: assistantBlocks(message) });
    else if (message.role === 'tool') {
      const block = toolResultBlock(message);
      const last = out.at(-1);
      if (last && isToolResults(last)) (last.content as Array<Record<string, unknown>>).push(block);
      else out.push({ role: 'user', content: [block] });
    }
  }
  return out;
}

const isToolResults = (message: WireMessage): boolean =>
  message.role === 'user' && Array.isArray(message.content) && message.content.every((b) => b.type === 'tool_result');

const EPHEMERAL = { type: 'ephemeral' } as const;
/** Blocks a cache breakpoint cannot sit on. */
const UNMARKABLE: ReadonlySet<unknown> = new Set(['thinking', 'redacted_thinking']);

/** The message with a cache breakpoint on its last block that can take one (a copy; the text becomes a block). */
function marked(message: WireMessage): WireMessage {
  if (typeof message.content === 'string') {
    return message.content === ''
      ? message
      : { role: message.role, content: [{ type: 'text', text: message.content, cache_control: EPHEMERAL }] };
  }
  const at = message.content.findLastIndex((block) => !UNMARKABLE.has(block.type));
  if (at < 0) return message;
  const content = message.content.slice();
  content[at] = { ...content[at], cache_control: EPHEMERAL };
  return { role: message.role, content };
}

/**
 * Cache breakpoints on the messages: at the end of the history the turn started from (the message before the
 * turn's own user message), which every call of the turn and the next turn repeat, and at the last message, which
 * the next call repeats. With the tools' and the system's, that is the vendor's limit of four.
 */
function withBreakpoints(messages: WireMessage[]): WireMessage[] {
  const turnStart = messages.findLastIndex((m) => m.role === 'user' && !isToolResults(m));
  const marks = new Set([turnStart - 1, messages.length - 1].filter((i) => i >= 0));
  return messages.map((message, i) => (marks.has(i) ? marked(message) : message));
}

/**
 * The request body exactly as sent to `{base}/messages`, in the vendor's cache order (tools, system, messages), the
 * vendor's own `web_search` tool after ours when the turn may search. Prompt caching: a breakpoint
 * (`cache_control: {type: "ephemeral"}`) after our tools (they stay the same while the system prompt's time moves
 * on), after the system prompt, and two in the messages (`withBreakpoints`).
 */
/** `thinking` for the entry's level: a budget below max_tokens (which the vendor requires), or adaptive. */
function thinkingOf(request: ChatRequest, maxTokens: number): Record<string, unknown> | undefined {
  if (request.thinkingLevel === 'adaptive') return { type: 'adaptive' };
  const budget = request.thinkingLevel ? THINKING_BUDGETS[request.thinkingLevel] : undefined;
  return budget === undefined ? undefined : { type: 'enabled', budget_tokens: Math.min(budget, maxTokens - 1) };
}

export function messagesBody(request: ChatRequest, native?: NativeSearch): Record<string, unknown> {
  const { tools, search } = searchPlan(native, request);
  const systemParts = [
    request.system,
    ...request.messages.filter((m) => m.role === 'system').map((m) => m.content),
  ].filter((s): s is string => s !== undefined && s !== '');
  const body: Record<string, unknown> = { model: request.model, max_tokens: request.maxTokens ?? defaultMaxTokens };
  const wireTools = tools.map(
    (t, i): Record<string, unknown> => ({
      name: t.name,
      description: t.description,
      input_schema: t.parameters,
      ...(i === tools.length - 1 ? { cache_control: EPHEMERAL } : {}),
    }),
  );
  if (search?.kind === 'tool') wireTools.push(search.tool);
  if (wireTools.length > 0) body.tools = wireTools;
  if (systemParts.length > 0)
    body.system = [{ type: 'text', text: systemParts.join('\n\n'), cache_control: EPHEMERAL }];
  body.messages = withBreakpoints(wireMessages(request.messages));
  const thinking = thinkingOf(request, body.max_tokens as number);
  if (thinking) body.thinking = thinking;
  // With thinking on the vendor takes no temperature but its own.
  else if (request.temperature !== undefined) body.temperature = request.temperature;
  if (request.stream) body.stream = true;
  return { ...body, ...request.extraBody };
}

/** A later usage object replaces only the counts it has (`message_delta` may leave the prompt's out or null). */
function definedOf(usage: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(usage).filter(([, value]) => value !== undefined && value !== null));
}

interface Parts {
  text: string;
  reasoning: string;
  signature: string;
  toolCalls: ToolCall[];
  usage?: Usage;
  finish?: string;
}

function answer(parts: Parts): ChatResponse {
  return normalizeAnswer({
    text: parts.text,
    ...(parts.reasoning ? { reasoning: parts.reasoning } : {}),
    ...(parts.signature ? { reasoning_signature: parts.signature } : {}),
    tool_calls: parts.toolCalls,
    ...(parts.usage ? { usage: parts.usage } : {}),
    ...(parts.finish ? { finish_reason: parts.finish } : {}),
  });
}

function fromBlocks(blocks: WireBlock[]): Pick<Parts, 'text' | 'reasoning' | 'signature' | 'toolCalls'> {
  const parts = { text: '', reasoning: '', signature: '', toolCalls: [] as ToolCall[] };
  for (const block of blocks) {
    if (block.type === 'text') parts.text += block.text;
    else if (block.type === 'thinking') {
      parts.reasoning += block.thinking;
      parts.signature = block.signature ?? parts.signature;
    } else if (block.type === 'tool_use')
      parts.toolCalls.push({ id: block.id, name: block.name, arguments: block.input });
  }
  return parts;
}

/** Blocks open, grow by deltas (tool input as `input_json_delta` fragments) and close; `message_stop` ends it. */
class MessageStream {
  private readonly parts: Parts = { text: '', reasoning: '', signature: '', toolCalls: [] };
  private readonly tools = new Map<number, { id: string; name: string; json: string }>();
  /** The usage fields as they arrive: the prompt's (and the cache's) at `message_start`, the answer's later. */
  private usage: Parameters<typeof messagesUsage>[0] = {};
  private done = false;

  constructor(private readonly onChunk?: CallOptions['onChunk']) {}

  add(event: MessagesStreamEvent, raw: string): void {
    switch (event.type) {
      case 'message_start':
        this.usage = { ...event.message.usage };
        return;
      case 'content_block_start':
        return this.start(event.index, event.content_block);
      case 'content_block_delta':
        return this.delta(event);
      case 'content_block_stop':
        return this.stop(event.index);
      case 'message_delta':
        this.parts.finish = event.delta.stop_reason ?? this.parts.finish;
        this.usage = { ...this.usage, ...definedOf(event.usage ?? {}) };
        return;
      case 'message_stop':
        this.done = true;
        return;
      case 'error':
        throw classifyFailure(200, raw);
      case 'ping':
        return;
    }
  }

  result(): ChatResponse {
    if (!this.done) throw streamEndedEarly();
    return answer({ ...this.parts, usage: messagesUsage(this.usage) });
  }

  private start(index: number, block: WireBlock): void {
    if (block.type === 'tool_use') this.tools.set(index, { id: block.id, name: block.name, json: '' });
    else if (block.type === 'text' && block.text) this.emit('text', block.text);
    else if (block.type === 'thinking' && block.thinking) this.emit('reasoning', block.thinking);
  }

  private delta(event: Extract<MessagesStreamEvent, { type: 'content_block_delta' }>): void {
    const delta = event.delta;
    if (delta.type === 'text_delta') this.emit('text', delta.text);
    else if (delta.type === 'thinking_delta') this.emit('reasoning', delta.thinking);
    else if (delta.type === 'signature_delta') this.parts.signature += delta.signature;
    else if (delta.type === 'input_json_delta') {
      const tool = this.tools.get(event.index);
      if (tool) tool.json += delta.partial_json;
    }
  }

  private stop(index: number): void {
    const tool = this.tools.get(index);
    if (!tool) return;
    this.parts.toolCalls.push({ id: tool.id, name: tool.name, arguments: parseArguments(tool.json) });
    this.tools.delete(index);
  }

  private emit(kind: 'text' | 'reasoning', delta: string): void {
    if (kind === 'text') this.parts.text += delta;
    else this.parts.reasoning += delta;
    this.onChunk?.({ kind, delta });
  }
}

export function createMessagesClient(endpoint: EndpointConfig): ProviderClient {
  const url = `${endpoint.apiBase}/messages`;
  const own: Record<string, string> = { 'anthropic-version': anthropicVersion };
  if (endpoint.apiKey !== undefined) own[endpoint.keyHeader ?? 'x-api-key'] = endpoint.apiKey;
  const headersOf = headersFor(own);

  return {
    family: 'messages',
    async chat(request, options = {}) {
      const call = callOf(endpoint, options, {
        url,
        headers: headersOf(request),
        body: messagesBody(request, endpoint.nativeSearch),
      });
      if (!request.stream) {
        const wire = parseWire(messageSchema, await postJson(call), 'message');
        return answer({
          ...fromBlocks(wire.content),
          usage: messagesUsage(wire.usage ?? {}),
          finish: wire.stop_reason ?? undefined,
        });
      }
      const stream = new MessageStream(options.onChunk);
      await postSse(call, (event) => {
        const json = parseJson(event.data);
        // The vendor may add event types; documented advice is to skip the ones we do not know.
        if (isRecord(json) && typeof json.type === 'string' && !knownEvents.has(json.type)) return;
        stream.add(parseWire(messagesStreamEventSchema, json, 'message event'), event.data);
      });
      return stream.result();
    },
  };
}
