// Answers in the chat-completions wire format as documented (`chat.completion`, `chat.completion.chunk`).
import { json, sseHeaders, type ScriptedReply } from './vendor-server.js';

export interface CompletionMessage {
  content?: string | null;
  reasoning_content?: string;
  tool_calls?: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }>;
}

export function completion(
  message: CompletionMessage,
  finish = 'stop',
  usage = { prompt_tokens: 12, completion_tokens: 5 },
): ScriptedReply {
  return json({
    id: 'chatcmpl-123',
    object: 'chat.completion',
    created: 1_700_000_000,
    model: 'gpt-test',
    choices: [
      { index: 0, message: { role: 'assistant', content: null, ...message }, logprobs: null, finish_reason: finish },
    ],
    usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
  });
}

/** One chunk object per delta, as `data: {json}\n\n` frames, then usage and `data: [DONE]\n\n`. */
export function completionStreamText(
  deltas: Array<Record<string, unknown>>,
  finish = 'stop',
  usage = { prompt_tokens: 12, completion_tokens: 5 },
): string {
  const frame = (choices: unknown[], extra: Record<string, unknown> = {}): string =>
    `data: ${JSON.stringify({
      id: 'chatcmpl-123',
      object: 'chat.completion.chunk',
      created: 1_700_000_000,
      model: 'gpt-test',
      choices,
      ...extra,
    })}\n\n`;
  const first = frame([{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }]);
  const body = deltas.map((delta) => frame([{ index: 0, delta, logprobs: null, finish_reason: null }])).join('');
  const last = frame([{ index: 0, delta: {}, logprobs: null, finish_reason: finish }]);
  const usageFrame = frame([], { usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } });
  return `${first}${body}${last}${usageFrame}data: [DONE]\n\n`;
}

export function sse(chunks: Array<string | Buffer>, after: ScriptedReply['after'] = 'end'): ScriptedReply {
  return { status: 200, headers: sseHeaders, chunks, after };
}
