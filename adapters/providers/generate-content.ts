import type { ChatMessage, ChatResponse, ToolCall, Usage } from '../../bus/index.js';
import { generateContentUsage } from './usage.js';
import { normalizeAnswer } from './answer-quirks.js';
import { isRecord } from './arguments.js';
import { classifyFailure } from './classify.js';
import { generateResponseSchema, type GenerateResponse } from './generate-content-wire.js';
import { parseJson, postJson, postSse } from './http.js';
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

type Content = { role: 'user' | 'model'; parts: Array<Record<string, unknown>> };

function modelParts(message: Extract<ChatMessage, { role: 'assistant' }>): Array<Record<string, unknown>> {
  const parts: Array<Record<string, unknown>> = message.content !== '' ? [{ text: message.content }] : [];
  for (const call of message.tool_calls) {
    parts.push({
      functionCall: { name: call.name, args: call.arguments },
      ...(call.signature ? { thoughtSignature: call.signature } : {}),
    });
  }
  return parts;
}

type ToolMessage = Extract<ChatMessage, { role: 'tool' }>;

/**
 * Tool results go back as `functionResponse` parts of one user turn; the images they returned follow as
 * `inlineData` parts at the end of that turn.
 */
function contents(messages: ChatMessage[]): Content[] {
  const out: Content[] = [];
  let results: ToolMessage[] = [];
  const flush = (): void => {
    if (results.length === 0) return;
    const parts: Array<Record<string, unknown>> = results.map((m) => ({
      functionResponse: { name: m.name, response: { result: m.content } },
    }));
    for (const image of results.flatMap((m) => m.images ?? []))
      parts.push({ inlineData: { mimeType: image.mime, data: image.data } });
    out.push({ role: 'user', parts });
    results = [];
  };
  for (const message of messages) {
    if (message.role === 'tool') {
      results.push(message);
      continue;
    }
    flush();
    if (message.role === 'user') out.push({ role: 'user', parts: [{ text: message.content }] });
    else if (message.role === 'assistant') out.push({ role: 'model', parts: modelParts(message) });
  }
  flush();
  return out;
}

/**
 * The request body exactly as sent to `models/{model}:generateContent` (and the streaming endpoint), the parts that
 * stay the same from call to call first (system instruction, tools with `google_search` last when the turn may
 * search, then the conversation).
 */
export function generateContentBody(request: ChatRequest, native?: NativeSearch): Record<string, unknown> {
  const { tools, search } = searchPlan(native, request);
  const system = [request.system, ...request.messages.filter((m) => m.role === 'system').map((m) => m.content)].filter(
    (s): s is string => s !== undefined && s !== '',
  );
  const body: Record<string, unknown> = {};
  if (system.length > 0) body.systemInstruction = { parts: [{ text: system.join('\n\n') }] };
  const wireTools: Array<Record<string, unknown>> =
    tools.length > 0
      ? [
          {
            functionDeclarations: tools.map((t) => ({
              name: t.name,
              description: t.description,
              parameters: t.parameters,
            })),
          },
        ]
      : [];
  if (search?.kind === 'tool') wireTools.push(search.tool);
  if (wireTools.length > 0) body.tools = wireTools;
  body.contents = contents(request.messages);
  const generation: Record<string, unknown> = {};
  if (request.temperature !== undefined) generation.temperature = request.temperature;
  if (request.maxTokens !== undefined) generation.maxOutputTokens = request.maxTokens;
  const level = request.thinkingLevel;
  // The vendor's budget: 0 is no thinking, -1 lets the model decide.
  if (level) generation.thinkingConfig = { thinkingBudget: level === 'off' ? 0 : (THINKING_BUDGETS[level] ?? -1) };
  if (Object.keys(generation).length > 0) body.generationConfig = generation;
  return { ...body, ...request.extraBody };
}

/** Function calls arrive whole; the finish reason is `STOP` even when the model asks for tools. */
export class GenerateAccumulator {
  private text = '';
  private reasoning = '';
  private readonly calls: ToolCall[] = [];
  private usage?: Usage;
  finish?: string;

  constructor(private readonly onChunk?: CallOptions['onChunk']) {}

  add(response: GenerateResponse): void {
    const candidate = response.candidates?.[0];
    for (const part of candidate?.content?.parts ?? []) {
      if (part.functionCall) {
        this.calls.push({
          id: part.functionCall.id ?? `call_${this.calls.length}`,
          name: part.functionCall.name,
          arguments: part.functionCall.args ?? {},
          ...(part.thoughtSignature ? { signature: part.thoughtSignature } : {}),
        });
      } else if (part.text) this.emit(part.thought === true ? 'reasoning' : 'text', part.text);
    }
    this.finish = candidate?.finishReason ?? this.finish;
    const meta = response.usageMetadata;
    if (meta) this.usage = generateContentUsage(meta);
  }

  result(): ChatResponse {
    return normalizeAnswer({
      text: this.text,
      ...(this.reasoning ? { reasoning: this.reasoning } : {}),
      tool_calls: this.calls,
      ...(this.usage ? { usage: this.usage } : {}),
      ...(this.finish ? { finish_reason: this.finish } : {}),
    });
  }

  private emit(kind: 'text' | 'reasoning', delta: string): void {
    if (kind === 'text') this.text += delta;
    else this.reasoning += delta;
    this.onChunk?.({ kind, delta });
  }
}

export function createGenerateContentClient(endpoint: EndpointConfig): ProviderClient {
  const own: Record<string, string> =
    endpoint.apiKey === undefined ? {} : { [endpoint.keyHeader ?? 'x-goog-api-key']: endpoint.apiKey };
  const headersOf = headersFor(own);

  return {
    family: 'generate-content',
    async chat(request, options = {}) {
      const model = `${endpoint.apiBase}/models/${encodeURIComponent(request.model)}`;
      const call = (url: string) =>
        callOf(endpoint, options, {
          url,
          headers: headersOf(request),
          body: generateContentBody(request, endpoint.nativeSearch),
        });
      const accumulator = new GenerateAccumulator(options.onChunk);
      if (!request.stream) {
        accumulator.add(
          parseWire(
            generateResponseSchema,
            await postJson(call(`${model}:generateContent`)),
            'generate-content answer',
          ),
        );
        return accumulator.result();
      }
      await postSse(call(`${model}:streamGenerateContent?alt=sse`), (event) => {
        const json = parseJson(event.data);
        if (isRecord(json) && json.error !== undefined) throw classifyFailure(200, event.data);
        accumulator.add(parseWire(generateResponseSchema, json, 'generate-content chunk'));
      });
      if (accumulator.finish === undefined) throw streamEndedEarly();
      return accumulator.result();
    },
  };
}
