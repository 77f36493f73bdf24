import type { ChatResponse, ToolCall } from '../../bus/index.js';
import { isRecord, parseArguments } from './arguments.js';

const toolCallTag = /<tool_call>\s*([\s\S]*?)\s*<\/tool_call>/g;
const thinkTag = /^\s*<think>([\s\S]*?)<\/think>\s*/;

function textToolCall(body: string, index: number): ToolCall | undefined {
  const parsed = parseArguments(body);
  const name = parsed.name;
  if (typeof name !== 'string' || name === '') return undefined;
  const args = parsed.arguments ?? parsed.parameters;
  const argumentsObject = typeof args === 'string' ? parseArguments(args) : isRecord(args) ? args : {};
  return { id: `call_text_${index}`, name, arguments: argumentsObject };
}

/**
 * Open-weights models sometimes answer in text what the API has fields for: `<think>…</think>` before the
 * answer, and `<tool_call>{"name":…,"arguments":…}</tool_call>`. Both move to their fields.
 */
export function normalizeAnswer(response: ChatResponse): ChatResponse {
  return extractToolCalls(extractThinking(response));
}

function extractThinking(response: ChatResponse): ChatResponse {
  const think = thinkTag.exec(response.text);
  if (!think) return response;
  const reasoning = [response.reasoning, think[1]!.trim()].filter((r) => r).join('\n');
  return { ...response, text: response.text.slice(think[0].length), ...(reasoning ? { reasoning } : {}) };
}

function extractToolCalls(response: ChatResponse): ChatResponse {
  if (response.tool_calls.length > 0 || !response.text.includes('<tool_call>')) return response;
  const calls: ToolCall[] = [];
  const rest = response.text.replace(toolCallTag, (whole, body: string) => {
    const call = textToolCall(body, calls.length);
    if (!call) return whole;
    calls.push(call);
    return '';
  });
  return calls.length > 0 ? { ...response, text: rest.trim(), tool_calls: calls } : response;
}
