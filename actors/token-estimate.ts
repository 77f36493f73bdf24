import type { ChatMessage } from '../bus/index.js';
import type { ToolSpec } from '../adapters/providers/provider.js';

/**
 * Tokens a prompt will take, estimated before the vendor counts them: 2.5 characters a token (the peer runtime's
 * estimate, between English prose and code or CJK text), 12 characters of framing per message, 256 tokens an image.
 * It decides when history is trimmed and summarized, never what is billed.
 */
const CHARS_PER_TOKEN = 2.5;
const MESSAGE_FRAMING = 12;
const IMAGE_TOKENS = 256;

const charsOf = (text: string | undefined): number => (text === undefined ? 0 : [...text].length);

function messageChars(message: ChatMessage): number {
  let chars = charsOf(message.content) + MESSAGE_FRAMING;
  if (message.role === 'assistant') {
    chars += charsOf(message.reasoning);
    for (const call of message.tool_calls)
      chars += call.id.length + call.name.length + JSON.stringify(call.arguments).length;
  }
  if (message.role === 'tool') chars += message.tool_call_id.length + message.name.length;
  return chars;
}

export function estimateMessageTokens(message: ChatMessage): number {
  const images = message.role === 'tool' ? (message.images?.length ?? 0) : 0;
  return Math.ceil(messageChars(message) / CHARS_PER_TOKEN) + images * IMAGE_TOKENS;
}

export const estimateTokens = (messages: readonly ChatMessage[]): number =>
  messages.reduce((sum, message) => sum + estimateMessageTokens(message), 0);

/** A system prompt and the tools offered, as the request carries them. */
export const estimateFrame = (system: string, tools: readonly ToolSpec[]): number =>
  Math.ceil((charsOf(system) + (tools.length > 0 ? JSON.stringify(tools).length : 0)) / CHARS_PER_TOKEN);
