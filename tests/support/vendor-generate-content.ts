// Answers in the generate-content wire format as documented: a `GenerateContentResponse`, or with `alt=sse`
// one response chunk per event, each framed `data: {json}\r\n\r\n`.
import { json, sseHeaders, type ScriptedReply } from './vendor-server.js';

export type Part =
  | { text: string; thought?: true; thoughtSignature?: string }
  | { functionCall: { name: string; args: Record<string, unknown> }; thoughtSignature?: string };

const usageMetadata = (prompt: number, candidates: number) => ({
  promptTokenCount: prompt,
  candidatesTokenCount: candidates,
  totalTokenCount: prompt + candidates,
});

function response(parts: Part[], finishReason: string | undefined, usage?: [number, number]): Record<string, unknown> {
  return {
    candidates: [{ content: { parts, role: 'model' }, ...(finishReason ? { finishReason } : {}), index: 0 }],
    ...(usage ? { usageMetadata: usageMetadata(usage[0], usage[1]) } : {}),
    modelVersion: 'gemini-test',
    responseId: 'resp-1',
  };
}

export function generated(parts: Part[], usage: [number, number] = [20, 7]): ScriptedReply {
  return json(response(parts, 'STOP', usage));
}

/** One chunk per group of parts; the last carries `finishReason: STOP` and the usage. */
export function generateStreamText(groups: Part[][], usage: [number, number] = [20, 7]): string {
  return groups
    .map((parts, i) => {
      const last = i === groups.length - 1;
      return `data: ${JSON.stringify(response(parts, last ? 'STOP' : undefined, last ? usage : undefined))}\r\n\r\n`;
    })
    .join('');
}

export function generateSse(chunks: Array<string | Buffer>, after: ScriptedReply['after'] = 'end'): ScriptedReply {
  return { status: 200, headers: sseHeaders, chunks, after };
}
