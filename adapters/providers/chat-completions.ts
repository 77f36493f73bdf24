import type { ChatMessage, ChatResponse, ToolCall, Usage } from '../../bus/index.js';
import { normalizeAnswer } from './answer-quirks.js';
import { isRecord, parseArguments } from './arguments.js';
import { bearerHeaders } from './bearer.js';
import { classifyFailure } from './classify.js';
import { chatCompletionsUsage } from './usage.js';
import {
  completionChunkSchema,
  completionSchema,
  type CompletionChunk,
  type WireToolCall,
  type WireUsage,
} from './chat-completions-wire.js';
import { parseJson, postJson, postSse } from './http.js';
import { callOf, type CallOptions, type ChatRequest, type EndpointConfig, type ProviderClient } from './provider.js';
import { searchPlan, type NativeSearch } from './native-search.js';
import { headersFor, parseWire, streamEndedEarly } from './wire.js';
import { jsonObject, type Field } from './json-object.js';
import { toolsBytes, toolsJson } from './tools-json.js';

/** A message as the chat-completions API takes it. */
function wireMessage(message: ChatMessage): Record<string, unknown> {
  switch (message.role) {
    case 'system':
    case 'user':
      return { role: message.role, content: message.content };
    case 'tool':
      return { role: 'tool', tool_call_id: message.tool_call_id, content: message.content };
    case 'assistant':
      if (message.tool_calls.length === 0) return { role: 'assistant', content: message.content };
      return {
        role: 'assistant',
        content: message.content === '' ? null : message.content,
        tool_calls: message.tool_calls.map((call) => ({
          id: call.id,
          type: 'function',
          function: { name: call.name, arguments: JSON.stringify(call.arguments) },
        })),
      };
  }
}

/**
 * A tool message carries text only, and every tool answer must follow its call at once: the images of a run of tool
 * results go in one user message after it, each tool's named before its `image_url` parts (data URLs).
 */
function imagesMessage(tools: Array<Extract<ChatMessage, { role: 'tool' }>>): Record<string, unknown> {
  const content: Array<Record<string, unknown>> = [];
  for (const tool of tools) {
    const images = tool.images ?? [];
    const which = images.length === 1 ? 'The image' : `The ${images.length} images`;
    content.push({ type: 'text', text: `${which} from ${tool.name} (${tool.tool_call_id}):` });
    for (const image of images)
      content.push({ type: 'image_url', image_url: { url: `data:${image.mime};base64,${image.data}` } });
  }
  return { role: 'user', content };
}

/**
 * Each message's JSON as sent, by message: a history is the same message objects call after call, and serializing
 * all of them again was most of the work of building a body. Nothing changes a message once it is in a history.
 */
const wireJson = new WeakMap<ChatMessage, string>();

function messageJson(message: ChatMessage): string {
  let json = wireJson.get(message);
  if (json === undefined) {
    json = JSON.stringify(wireMessage(message));
    wireJson.set(message, json);
  }
  return json;
}

/** `JSON.stringify` of the messages as the API takes them, tool images moved after their run of tool results. */
function wireMessagesJson(messages: ChatMessage[]): string {
  const out: string[] = [];
  let shown: Array<Extract<ChatMessage, { role: 'tool' }>> = [];
  for (const message of messages) {
    if (message.role !== 'tool' && shown.length > 0) {
      out.push(JSON.stringify(imagesMessage(shown)));
      shown = [];
    }
    out.push(messageJson(message));
    if (message.role === 'tool' && message.images?.length) shown.push(message);
  }
  if (shown.length > 0) out.push(JSON.stringify(imagesMessage(shown)));
  return `[${out.join(',')}]`;
}

/** `reasoning_effort` for a thinking level: the vendor's own words; `off` and `adaptive` send none (its default). */
function reasoningEffort(level: ChatRequest['thinkingLevel']): string | undefined {
  if (level === 'low' || level === 'medium' || level === 'high') return level;
  return level === 'xhigh' ? 'high' : undefined;
}

/**
 * The request body exactly as sent to `{base}/chat/completions` (UTF-8): the parts that stay the same from call to call
 * first (model, tools, then the system prompt and the history inside `messages`), so a vendor's prefix cache keeps
 * matching; the provider's own search (a tool after ours, or its fields after the stream fields); then `extra_body`'s
 * fields, which may replace any of ours in place (`tools` too).
 */
export function chatCompletionsBody(request: ChatRequest, native?: NativeSearch): Buffer {
  const { tools, search } = searchPlan(native, request);
  const system: ChatMessage[] = request.system ? [{ role: 'system', content: request.system }] : [];
  const fields: Record<string, unknown> = {};
  if (request.maxTokens !== undefined) fields.max_tokens = request.maxTokens;
  if (request.temperature !== undefined) fields.temperature = request.temperature;
  const effort = reasoningEffort(request.thinkingLevel);
  if (effort) fields.reasoning_effort = effort;
  if (request.stream) Object.assign(fields, { stream: true, stream_options: { include_usage: true } });
  if (search?.kind === 'fields') Object.assign(fields, search.fields);
  const wireTools =
    search?.kind === 'tool'
      ? `[${[toolsJson(tools).slice(1, -1), JSON.stringify(search.tool)].filter(Boolean).join(',')}]`
      : tools.length > 0
        ? toolsBytes(tools)
        : undefined;
  return jsonObject(
    [
      ['model', JSON.stringify(request.model)],
      ['tools', wireTools],
      ['messages', wireMessagesJson([...system, ...request.messages])],
      ...Object.entries(fields).map(([key, value]): Field => [key, JSON.stringify(value)]),
    ],
    request.extraBody,
  );
}

function usageOf(usage: WireUsage): Usage | undefined {
  return usage ? chatCompletionsUsage(usage) : undefined;
}

function answer(parts: {
  text: string;
  reasoning: string;
  toolCalls: ToolCall[];
  usage?: Usage;
  finish?: string;
}): ChatResponse {
  return normalizeAnswer({
    text: parts.text,
    ...(parts.reasoning ? { reasoning: parts.reasoning } : {}),
    tool_calls: parts.toolCalls,
    ...(parts.usage ? { usage: parts.usage } : {}),
    ...(parts.finish ? { finish_reason: parts.finish } : {}),
  });
}

/** Tool-call deltas merge by `index`; `arguments` arrives as JSON text in any number of pieces. */
class CompletionStream {
  private text = '';
  private reasoning = '';
  private readonly calls = new Map<number, { id: string; name: string; args: string }>();
  private usage?: Usage;
  private finish?: string;
  done = false;

  constructor(private readonly onChunk?: CallOptions['onChunk']) {}

  add(chunk: CompletionChunk): void {
    this.usage = usageOf(chunk.usage) ?? this.usage;
    for (const choice of chunk.choices ?? []) {
      if (choice.finish_reason) this.finish = choice.finish_reason;
      const delta = choice.delta;
      if (!delta) continue;
      const thought = delta.reasoning_content ?? delta.reasoning;
      if (thought) this.emit('reasoning', thought);
      if (delta.content) this.emit('text', delta.content);
      for (const call of delta.tool_calls ?? []) this.addCall(call);
    }
  }

  result(): ChatResponse {
    if (!this.done && this.finish === undefined) throw streamEndedEarly();
    const toolCalls = [...this.calls.entries()]
      .sort(([a], [b]) => a - b)
      .map(([, c]) => ({ id: c.id, name: c.name, arguments: parseArguments(c.args) }));
    return answer({ text: this.text, reasoning: this.reasoning, toolCalls, usage: this.usage, finish: this.finish });
  }

  private emit(kind: 'text' | 'reasoning', delta: string): void {
    if (kind === 'text') this.text += delta;
    else this.reasoning += delta;
    this.onChunk?.({ kind, delta });
  }

  private addCall(call: WireToolCall): void {
    const index = call.index ?? this.calls.size;
    const known = this.calls.get(index) ?? { id: '', name: '', args: '' };
    if (call.id) known.id = call.id;
    if (call.function?.name) known.name += call.function.name;
    if (call.function?.arguments) known.args += call.function.arguments;
    this.calls.set(index, known);
  }
}

export function createChatCompletionsClient(endpoint: EndpointConfig): ProviderClient {
  const url = `${endpoint.apiBase}/chat/completions`;
  const headersOf = headersFor(bearerHeaders(endpoint));

  return {
    family: 'chat-completions',
    async chat(request, options = {}) {
      const call = callOf(endpoint, options, {
        url,
        headers: headersOf(request),
        body: chatCompletionsBody(request, endpoint.nativeSearch),
      });
      if (!request.stream) {
        const json = await postJson(call);
        const wire = parseWire(completionSchema, json, 'chat completion');
        const choice = wire.choices[0]!;
        const toolCalls = (choice.message.tool_calls ?? []).map((c, i) => ({
          id: c.id ?? `call_${i}`,
          name: c.function?.name ?? '',
          arguments: parseArguments(c.function?.arguments ?? ''),
        }));
        return answer({
          text: choice.message.content ?? '',
          reasoning: choice.message.reasoning_content ?? choice.message.reasoning ?? '',
          toolCalls,
          usage: usageOf(wire.usage),
          finish: choice.finish_reason ?? undefined,
        });
      }
      const stream = new CompletionStream(options.onChunk);
      await postSse(call, (event) => {
        if (event.data === '[DONE]') {
          stream.done = true;
          return;
        }
        const json = parseJson(event.data);
        // Routers report failures that happen mid-answer as a chunk holding only `error`.
        if (isRecord(json) && json.error !== undefined) throw classifyFailure(200, event.data);
        stream.add(parseWire(completionChunkSchema, json, 'chat completion chunk'));
      });
      return stream.result();
    },
  };
}
