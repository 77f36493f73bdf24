import type { ChatResponse, ToolCall, Usage } from '../../bus/index.js';
import { joinedBody } from '../http/body-slab.js';
import { normalizeAnswer } from './answer-quirks.js';
import { isRecord, parseArguments } from './arguments.js';
import { bearerHeaders } from './bearer.js';
import { messagesJson, wireMessage } from './chat-messages-json.js';
import { classifyFailure } from './classify.js';
import { chatCompletionsUsage } from './usage.js';
import { completionChunkSchema, completionSchema, isCompletion, type CompletionChunk, type WireToolCall, type WireUsage } from './chat-completions-wire.js';
import { JsonBytes, parseJson, postJson, postSse } from './http.js';
import type { CallOptions, ChatRequest, EndpointConfig, ProviderClient, ToolSpec } from './provider.js';
import { headersFor, parseWire, streamEndedEarly } from './wire.js';

// Tool definitions are most of a request's bytes and the same spec objects on every call (the registry caches
// them), so each is serialized once.
const wireTools = new WeakMap<ToolSpec, string>();

function wireTool(spec: ToolSpec): string {
  let text = wireTools.get(spec);
  if (text === undefined) {
    text = JSON.stringify({ type: 'function', function: { name: spec.name, description: spec.description, parameters: spec.parameters } });
    wireTools.set(spec, text);
  }
  return text;
}

// A turn's tool list is a new array of the same cached specs: its JSON is kept encoded (a few lists, for agents
// with different tools) and reused while unchanged. The tools are most of a request's bytes; the system prompt's
// JSON comes from `promptJsonParts`, which escapes only what changed since the previous prompt.
interface ToolsBytes {
  specs: readonly ToolSpec[];
  /** `,"tools":[…]}`: the body's last field and its close. */
  bytes: Buffer;
}
const recentTools: ToolsBytes[] = [];
const KEPT = 8;

const sameSpecs = (a: readonly ToolSpec[], b: readonly ToolSpec[]): boolean => a.length === b.length && a.every((spec, i) => spec === b[i]);

function toolsTail(specs: readonly ToolSpec[]): Buffer {
  const known = recentTools.find((entry) => sameSpecs(entry.specs, specs));
  if (known) return known.bytes;
  const bytes = Buffer.from(`,"tools":[${specs.map(wireTool).join(',')}]}`);
  recentTools.unshift({ specs: [...specs], bytes });
  if (recentTools.length > KEPT) recentTools.pop();
  return bytes;
}

// The fields this body writes itself: an `extra_body` naming one of them replaces it where it stands (and
// integer-like names go first in any object), which only serializing the merged object does right.
const ownFields = new Set(['model', 'messages', 'max_tokens', 'stream', 'stream_options']);
const placedByMerge = (extra: Record<string, unknown>): boolean => Object.keys(extra).some((key) => ownFields.has(key) || /^\d+$/.test(key));

/** `extra_body`'s fields after ours, as `{...body, ...extra_body}` places them; empty when it has none. */
function extraText(extra: Record<string, unknown> | undefined): string {
  if (extra === undefined) return '';
  const text = JSON.stringify(extra);
  return text.length > 2 ? `,${text.slice(1, -1)}` : '';
}

function mergedHead(request: ChatRequest, extra: Record<string, unknown>): string {
  const system = request.system !== undefined ? [{ role: 'system', content: request.system }] : [];
  const body: Record<string, unknown> = { model: request.model, messages: [...system, ...request.messages.map(wireMessage)] };
  if (request.maxTokens !== undefined) body.max_tokens = request.maxTokens;
  if (request.stream) Object.assign(body, { stream: true, stream_options: { include_usage: true } });
  return JSON.stringify({ ...body, ...extra }).slice(0, -1);
}

/** The body up to its tools, open, in pieces: our fields in order, then `extra_body`'s. */
function ownHead(request: ChatRequest, extra: Record<string, unknown> | undefined): string[] {
  const maxTokens = request.maxTokens !== undefined ? `,"max_tokens":${JSON.stringify(request.maxTokens)}` : '';
  const stream = request.stream ? ',"stream":true,"stream_options":{"include_usage":true}' : '';
  return [`{"model":${JSON.stringify(request.model)},"messages":`, ...messagesJson(request.system, request.messages), `${maxTokens}${stream}${extraText(extra)}`];
}

const CLOSE = Buffer.from('}');

/** The request body exactly as sent to `{base}/chat/completions`; `extra_body` may replace any field, `tools` too. */
export function chatCompletionsBody(request: ChatRequest): Buffer {
  const extra = request.extraBody;
  const head = extra && placedByMerge(extra) ? [mergedHead(request, extra)] : ownHead(request, extra);
  return joinedBody(head, request.tools.length === 0 || (extra && 'tools' in extra) ? CLOSE : toolsTail(request.tools));
}

function usageOf(usage: WireUsage): Usage | undefined {
  return usage ? chatCompletionsUsage(usage) : undefined;
}

function answer(parts: { text: string; reasoning: string; toolCalls: ToolCall[]; usage?: Usage; finish?: string }): ChatResponse {
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
    const toolCalls = [...this.calls.entries()].sort(([a], [b]) => a - b)
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
      const call = { url, headers: headersOf(request), body: new JsonBytes(chatCompletionsBody(request)), signal: options.signal,
        timeoutMs: options.timeoutMs };
      if (!request.stream) {
        const json = await postJson(call);
        const wire = isCompletion(json) ? json : parseWire(completionSchema, json, 'chat completion');
        const choice = wire.choices[0]!;
        const toolCalls = (choice.message.tool_calls ?? []).map((c, i) => ({
          id: c.id ?? `call_${i}`, name: c.function?.name ?? '', arguments: parseArguments(c.function?.arguments ?? ''),
        }));
        return answer({
          text: choice.message.content ?? '', reasoning: choice.message.reasoning_content ?? choice.message.reasoning ?? '',
          toolCalls, usage: usageOf(wire.usage), finish: choice.finish_reason ?? undefined,
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
