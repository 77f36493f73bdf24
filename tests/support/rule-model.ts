// A loopback chat-completions model whose answer to each request is decided by the test from that request (its
// model id, system prompt, messages and tools), so concurrent parent and child turns need no scripted order. An
// answer may wait for a gate the test opens, or never come (the client's abort closes the connection).
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { withoutTime } from './user-time.js';

export interface ModelMessage {
  role: string;
  content: string | null;
  tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>;
  tool_call_id?: string;
}

export interface ModelRequest {
  /** The native model id sent (one per `model_list` entry in these tests). */
  model: string;
  system: string;
  /** The messages after the system prompt. */
  messages: ModelMessage[];
  /** The text of the last user message. */
  user: string;
  /** The role of the last message: `tool` when a tool result came back. */
  last: string;
  /** The last tool result's text, when `last` is `tool`. */
  toolResult: string;
  tools: string[];
  at: number;
}

export type ToolCallAnswer = { name: string; arguments: Record<string, unknown> };
/** `refuse` answers with that HTTP status and the vendor's error body instead. */
export type ModelAnswer =
  | { text?: string; calls?: ToolCallAnswer[]; wait?: Promise<unknown>; refuse?: number }
  | 'hang';
export type Rule = (request: ModelRequest) => ModelAnswer;

export interface RuleModel {
  url: string;
  requests: ModelRequest[];
  /** Resolves with the first request (already made or still to come) that `match` accepts. */
  request(match: (request: ModelRequest) => boolean): Promise<ModelRequest>;
  close(): Promise<void>;
}

let calls = 0;

function body(answer: Exclude<ModelAnswer, 'hang'>): string {
  const tool_calls = answer.calls?.map((call) => ({
    id: `call_${++calls}`,
    type: 'function',
    function: { name: call.name, arguments: JSON.stringify(call.arguments) },
  }));
  return JSON.stringify({
    id: 'chatcmpl-rule',
    object: 'chat.completion',
    created: 1_700_000_000,
    model: 'rule',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: answer.text ?? null, ...(tool_calls?.length ? { tool_calls } : {}) },
        logprobs: null,
        finish_reason: tool_calls?.length ? 'tool_calls' : 'stop',
      },
    ],
    usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
  });
}

function parse(raw: string): ModelRequest {
  const json = JSON.parse(raw || '{}') as {
    model?: string;
    messages?: ModelMessage[];
    tools?: Array<{ function: { name: string } }>;
  };
  const all = json.messages ?? [];
  const system = all[0]?.role === 'system' ? String(all[0].content ?? '') : '';
  const messages = all[0]?.role === 'system' ? all.slice(1) : all;
  const lastUser = [...messages].reverse().find((m) => m.role === 'user');
  const last = messages.at(-1);
  return {
    model: json.model ?? '',
    system,
    messages,
    user: withoutTime(String(lastUser?.content ?? '')),
    last: last?.role ?? '',
    toolResult: last?.role === 'tool' ? String(last.content ?? '') : '',
    tools: (json.tools ?? []).map((t) => t.function.name),
    at: Date.now(),
  };
}

export async function startRuleModel(rule: Rule): Promise<RuleModel> {
  const requests: ModelRequest[] = [];
  const waiting: Array<{ match: (r: ModelRequest) => boolean; resolve: (r: ModelRequest) => void }> = [];
  const respond = (res: ServerResponse, answer: Exclude<ModelAnswer, 'hang'>): void => {
    if (res.destroyed) return;
    if (answer.refuse)
      res
        .writeHead(answer.refuse, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: { message: 'the request was refused', type: 'invalid_request_error' } }));
    else res.writeHead(200, { 'content-type': 'application/json' }).end(body(answer));
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const request = parse(Buffer.concat(chunks).toString('utf8'));
      requests.push(request);
      for (const w of [...waiting]) {
        if (!w.match(request)) continue;
        waiting.splice(waiting.indexOf(w), 1);
        w.resolve(request);
      }
      const answer = rule(request);
      if (answer === 'hang') return;
      if (answer.wait) void answer.wait.then(() => respond(res, answer));
      else respond(res, answer);
    });
  });
  server.keepAliveTimeout = 1;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    request: (match) => {
      const seen = requests.find(match);
      return seen ? Promise.resolve(seen) : new Promise((resolve) => waiting.push({ match, resolve }));
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A gate a rule's answer waits on until the test opens it. */
export function gate(): { wait: Promise<void>; open(): void } {
  let open!: () => void;
  const wait = new Promise<void>((resolve) => (open = resolve));
  return { wait, open };
}
