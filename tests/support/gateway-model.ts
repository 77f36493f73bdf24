// A loopback chat-completions model that answers from the last user message, so tests need not script
// replies in order: `echo: <text>` by default; `LONG` asks for a long answer with a code block; `SLOW`
// answers after a pause; `NOTE <text>` calls the `message` tool with <text> (`NOTE TO <channel> <chat> <text>` to
// another chat), then answers `noted`; `PLAN <text>` writes <text> into the todo plan, then answers `planned` after
// 5 s; with `stream: true` the answer arrives as SSE chunks (a `DRIP` message's words 150 ms apart). `delayMs` holds
// every answer that long (a model that takes its time); `FILE <path> <caption>` calls `send_file`, then answers
// `sent`; a `HOLD` message is answered once the test calls `release()`.
// `/audio/transcriptions` answers with TRANSCRIPT.
// `THINK <text>` answers with reasoning `pondering: THINK <text>` beside the text.
// `SPEAK <text>` calls `send_tts`, then answers `spoken`; `SEARCH <regex>` calls `search_files` in folder `corpus`,
// then answers `searched: SEARCH <regex>`; `LOOK` lists `.` then `memory`, then answers `looked`.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { completionStreamText } from './vendor-chat-completions.js';
import { withoutTime } from './user-time.js';

export interface GatewayModel {
  url: string;
  requests: number;
  /** The request bodies' last user texts, in arrival order. */
  asked: string[];
  /** The request bodies' system prompts (chat-completions' first `system` message), in arrival order. */
  systems: string[];
  /** Answers to `HOLD` messages wait until this is called (and are sent at once after). */
  release(): void;
  close(): Promise<void>;
}

export const TRANSCRIPT = 'turn on the lights';

export const LONG_REPLY = [
  'Here is the code:',
  '```ts',
  ...Array.from({ length: 400 }, (_, i) => `const line${i} = ${i}; // filler`),
  '```',
  'Done.',
].join('\n');

function lastUserText(body: unknown): string {
  const messages = (body as { messages?: Array<{ role: string; content: unknown }> }).messages ?? [];
  const last = [...messages].reverse().find((m) => m.role === 'user');
  if (typeof last?.content === 'string') return withoutTime(last.content);
  if (Array.isArray(last?.content))
    return withoutTime(last.content.map((part: { text?: string }) => part.text ?? '').join(''));
  return '';
}

function answerFor(text: string): string {
  if (text.includes('LONG')) return LONG_REPLY;
  return `echo: ${text.trim()}`;
}

function completionBody(content: string, reasoning?: string): string {
  return JSON.stringify({
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 1_700_000_000,
    model: 'gpt-test',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content, ...(reasoning ? { reasoning_content: reasoning } : {}) },
        logprobs: null,
        finish_reason: 'stop',
      },
    ],
    usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
  });
}

/** The `message` tool call a `NOTE …` message asks for; `NOTE TO <channel> <chat> …` names another chat. */
function noteCall(text: string): string {
  const to = /NOTE TO (\S+) (\S+) (.*)$/s.exec(text);
  const args = JSON.stringify(
    to ? { content: to[3], channel: to[1], chat_id: to[2] } : { content: text.replace(/^.*NOTE\s*/, '') },
  );
  return JSON.stringify({
    id: 'chatcmpl-2',
    object: 'chat.completion',
    created: 1_700_000_000,
    model: 'gpt-test',
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_note', type: 'function', function: { name: 'message', arguments: args } }],
        },
        logprobs: null,
        finish_reason: 'tool_calls',
      },
    ],
  });
}

/** The `send_file` tool call a `FILE <path> <caption>` message asks for. */
function fileCall(text: string): string {
  const [, path, caption] = /FILE (\S+) ?(.*)$/s.exec(text) ?? [];
  const args = JSON.stringify({ path, ...(caption ? { caption } : {}) });
  return JSON.stringify({
    id: 'chatcmpl-4',
    object: 'chat.completion',
    created: 1_700_000_000,
    model: 'gpt-test',
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_file', type: 'function', function: { name: 'send_file', arguments: args } }],
        },
        logprobs: null,
        finish_reason: 'tool_calls',
      },
    ],
  });
}

/** A call of tool `name` with `args`. */
function toolCall(name: string, args: Record<string, unknown>): string {
  const call = { id: `call_${name}`, type: 'function', function: { name, arguments: JSON.stringify(args) } };
  return JSON.stringify({
    id: 'chatcmpl-4',
    object: 'chat.completion',
    created: 1_700_000_000,
    model: 'gpt-test',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: null, tool_calls: [call] },
        logprobs: null,
        finish_reason: 'tool_calls',
      },
    ],
  });
}

/** The `todo` tool call a `PLAN …` message asks for. */
function planCall(text: string): string {
  const args = JSON.stringify({ action: 'write', todos: [{ id: 'p1', content: text.replace(/^.*PLAN\s*/, '') }] });
  return JSON.stringify({
    id: 'chatcmpl-3',
    object: 'chat.completion',
    created: 1_700_000_000,
    model: 'gpt-test',
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_plan', type: 'function', function: { name: 'todo', arguments: args } }],
        },
        logprobs: null,
        finish_reason: 'tool_calls',
      },
    ],
  });
}

const lastRole = (body: unknown): string | undefined =>
  (body as { messages?: Array<{ role: string }> }).messages?.at(-1)?.role;

export async function startGatewayModel(options: { delayMs?: number } = {}): Promise<GatewayModel> {
  const state = { requests: 0, asked: [] as string[], systems: [] as string[], released: false };
  const held: Array<() => void> = [];
  const timers = new Set<NodeJS.Timeout>();
  const later = (ms: number, run: () => void): void => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      run();
    }, ms);
    timers.add(timer);
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      state.requests++;
      if (req.url?.endsWith('/audio/transcriptions')) {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ text: TRANSCRIPT }));
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as { stream?: boolean };
      const text = lastUserText(body);
      state.asked.push(text);
      const system = (body as { messages?: Array<{ role: string; content: unknown }> }).messages?.[0];
      if (system?.role === 'system') state.systems.push(String(system.content));
      if (text.includes('PLAN') && !body.stream) {
        if (lastRole(body) === 'tool')
          later(5000, () => res.writeHead(200, { 'content-type': 'application/json' }).end(completionBody('planned')));
        else res.writeHead(200, { 'content-type': 'application/json' }).end(planCall(text));
        return;
      }
      if (text.startsWith('FILE ') && !body.stream) {
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(lastRole(body) === 'tool' ? completionBody('sent') : fileCall(text));
        return;
      }
      if (text === 'LOOK' && !body.stream) {
        const results = (body as { messages?: Array<{ role: string }> }).messages?.filter((m) => m.role === 'tool');
        const looked = results?.length ?? 0;
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(looked >= 2 ? completionBody('looked') : toolCall('list_dir', { path: looked === 0 ? '.' : 'memory' }));
        return;
      }
      if (text.startsWith('SEARCH ') && !body.stream) {
        const args = { pattern: text.slice('SEARCH '.length), path: 'corpus' };
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(lastRole(body) === 'tool' ? completionBody(`searched: ${text}`) : toolCall('search_files', args));
        return;
      }
      if (text.startsWith('SPEAK ') && !body.stream) {
        const args = { text: text.slice('SPEAK '.length), filename: 'reply.mp3' };
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(lastRole(body) === 'tool' ? completionBody('spoken') : toolCall('send_tts', args));
        return;
      }
      if (text.includes('NOTE') && !body.stream) {
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(lastRole(body) === 'tool' ? completionBody('noted') : noteCall(text));
        return;
      }
      const answer = answerFor(text);
      const respond = (): void => {
        if (body.stream && text.includes('DRIP')) {
          // The stream's frames one word at a time, 150 ms apart, so a test can cut it in the middle.
          const frames = completionStreamText(answer.split(/(?<= )/).map((w) => ({ content: w }))).split(/(?<=\n\n)/);
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          const next = (): void => {
            const frame = frames.shift();
            if (frame === undefined) return void res.end();
            res.write(frame);
            later(150, next);
          };
          next();
        } else if (body.stream) {
          const words = answer.split(/(?<= )/);
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          res.end(completionStreamText(words.map((w) => ({ content: w }))));
        } else {
          // A `THINK` message is answered with reasoning beside the text, as reasoning models do.
          const reasoning = text.includes('THINK') ? `pondering: ${text.trim()}` : undefined;
          res.writeHead(200, { 'content-type': 'application/json' }).end(completionBody(answer, reasoning));
        }
      };
      if (text.includes('HOLD') && !state.released) held.push(respond);
      else if (text.includes('SLOW')) later(3000, respond);
      else if (options.delayMs) later(options.delayMs, respond);
      else respond();
    });
  });
  server.keepAliveTimeout = 1;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get requests() {
      return state.requests;
    },
    asked: state.asked,
    systems: state.systems,
    release: () => {
      state.released = true;
      for (const respond of held.splice(0)) respond();
    },
    close: () =>
      new Promise((resolve) => {
        timers.forEach((t) => clearTimeout(t));
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
