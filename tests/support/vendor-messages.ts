// Answers in the messages wire format as documented: a `message` object, or named SSE events
// (`event: <type>\ndata: {json}\n\n`) from `message_start` to `message_stop`.
import { json, sseHeaders, type ScriptedReply } from './vendor-server.js';

export type Block =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> }
  | { type: 'thinking'; thinking: string; signature: string };

const baseMessage = { id: 'msg_01XFDUDYJgAACzvnptvVoYEL', type: 'message', role: 'assistant', model: 'claude-test' };

export function message(
  content: Block[],
  stopReason = 'end_turn',
  usage: Record<string, number> = { input_tokens: 25, output_tokens: 9 },
): ScriptedReply {
  return json({ ...baseMessage, content, stop_reason: stopReason, stop_sequence: null, usage });
}

export function frame(type: string, data: Record<string, unknown>): string {
  return `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
}

/** The event sequence a streamed message with these blocks produces; tool input split in `jsonPieces`. */
export function messageStreamText(
  blocks: Block[],
  stopReason = 'end_turn',
  usage = { input_tokens: 25, output_tokens: 9 },
  jsonPieces = 3,
): string {
  const out = [
    frame('message_start', {
      message: {
        ...baseMessage,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: usage.input_tokens, output_tokens: 1 },
      },
    }),
    frame('ping', {}),
  ];
  blocks.forEach((block, index) => {
    if (block.type === 'text') {
      out.push(frame('content_block_start', { index, content_block: { type: 'text', text: '' } }));
      for (const piece of block.text.split(/(?<= )/))
        out.push(frame('content_block_delta', { index, delta: { type: 'text_delta', text: piece } }));
    } else if (block.type === 'thinking') {
      out.push(frame('content_block_start', { index, content_block: { type: 'thinking', thinking: '' } }));
      out.push(frame('content_block_delta', { index, delta: { type: 'thinking_delta', thinking: block.thinking } }));
      out.push(frame('content_block_delta', { index, delta: { type: 'signature_delta', signature: block.signature } }));
    } else {
      out.push(
        frame('content_block_start', {
          index,
          content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} },
        }),
      );
      const text = JSON.stringify(block.input);
      const size = Math.ceil(text.length / jsonPieces);
      for (let i = 0; i < text.length; i += size) {
        out.push(
          frame('content_block_delta', {
            index,
            delta: { type: 'input_json_delta', partial_json: text.slice(i, i + size) },
          }),
        );
      }
    }
    out.push(frame('content_block_stop', { index }));
  });
  out.push(
    frame('message_delta', {
      delta: { stop_reason: stopReason, stop_sequence: null },
      usage: { output_tokens: usage.output_tokens },
    }),
  );
  out.push(frame('message_stop', {}));
  return out.join('');
}

export function messageSse(chunks: Array<string | Buffer>, after: ScriptedReply['after'] = 'end'): ScriptedReply {
  return { status: 200, headers: sseHeaders, chunks, after };
}
