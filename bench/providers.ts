// Provider client figures against a loopback server: how fast a streamed answer is parsed (SSE framing, JSON,
// schema checks, accumulation) and what one non-streamed request costs on top of the network.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chatCompletionsBody } from '../adapters/providers/chat-completions.js';
import { createProviderClient } from '../adapters/providers/client.js';
import type { ChatRequest, ProtocolFamily, ToolSpec } from '../adapters/providers/provider.js';
import type { ChatMessage } from '../bus/index.js';
import { percentile, round, type BenchRow } from './row.js';

const families: ProtocolFamily[] = ['chat-completions', 'messages', 'generate-content'];
const deltaCount = 20_000;
const requestCount = 200;
const delta = 'The quick brown fox jumps over the lazy dog. ';

function streamBody(family: ProtocolFamily): string {
  const frames: string[] = [];
  if (family === 'chat-completions') {
    for (let i = 0; i < deltaCount; i++) {
      frames.push(
        `data: ${JSON.stringify({
          id: 'c',
          object: 'chat.completion.chunk',
          created: 1,
          model: 'm',
          choices: [{ index: 0, delta: { content: delta }, finish_reason: null }],
        })}\n\n`,
      );
    }
    frames.push(
      `data: ${JSON.stringify({
        id: 'c',
        object: 'chat.completion.chunk',
        created: 1,
        model: 'm',
        choices: [{ index: 0, delta: {}, finish_reason: 'stop' }],
      })}\n\ndata: [DONE]\n\n`,
    );
  } else if (family === 'messages') {
    const ev = (type: string, data: Record<string, unknown>) =>
      `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
    frames.push(
      ev('message_start', { message: { usage: { input_tokens: 1, output_tokens: 1 } } }),
      ev('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
    );
    for (let i = 0; i < deltaCount; i++)
      frames.push(ev('content_block_delta', { index: 0, delta: { type: 'text_delta', text: delta } }));
    frames.push(
      ev('content_block_stop', { index: 0 }),
      ev('message_delta', { delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 9 } }),
      ev('message_stop', {}),
    );
  } else {
    for (let i = 0; i < deltaCount; i++) {
      const last = i === deltaCount - 1;
      frames.push(
        `data: ${JSON.stringify({
          candidates: [
            {
              content: { parts: [{ text: delta }], role: 'model' },
              ...(last ? { finishReason: 'STOP' } : {}),
              index: 0,
            },
          ],
        })}\r\n\r\n`,
      );
    }
  }
  return frames.join('');
}

function wholeAnswer(family: ProtocolFamily): string {
  if (family === 'chat-completions') {
    return JSON.stringify({
      id: 'c',
      object: 'chat.completion',
      choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 1, completion_tokens: 1 },
    });
  }
  if (family === 'messages') {
    return JSON.stringify({
      id: 'm',
      type: 'message',
      role: 'assistant',
      content: [{ type: 'text', text: 'ok' }],
      stop_reason: 'end_turn',
      usage: { input_tokens: 1, output_tokens: 1 },
    });
  }
  return JSON.stringify({
    candidates: [{ content: { parts: [{ text: 'ok' }], role: 'model' }, finishReason: 'STOP' }],
    usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 1 },
  });
}

async function familyRows(family: ProtocolFamily): Promise<BenchRow[]> {
  const stream = Buffer.from(streamBody(family));
  const whole = wholeAnswer(family);
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const streaming = (req.url ?? '').includes('stream') || req.headers['x-bench-stream'] === '1';
      res.writeHead(200, { 'content-type': streaming ? 'text/event-stream' : 'application/json' });
      res.end(streaming ? stream : whole);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const client = createProviderClient({
      family,
      apiBase: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
      apiKey: 'bench',
    });
    const request: ChatRequest = {
      model: 'bench',
      messages: [{ role: 'user', content: 'hi' }],
      tools: [],
      stream: false,
    };
    const streamed: ChatRequest = { ...request, stream: true, headers: { 'x-bench-stream': '1' } };
    await client.chat(streamed);
    const runs: number[] = [];
    for (let i = 0; i < 5; i++) {
      const start = performance.now();
      await client.chat(streamed);
      runs.push(performance.now() - start);
    }
    const best = Math.min(...runs);
    for (let i = 0; i < 20; i++) await client.chat(request);
    const times: number[] = [];
    for (let i = 0; i < requestCount; i++) {
      const start = performance.now();
      await client.chat(request);
      times.push(performance.now() - start);
    }
    times.sort((x, y) => x - y);
    return [
      {
        name: `provider.sse_mb_per_s.${family}`,
        value: round(stream.length / 1_048_576 / (best / 1000), 1),
        unit: 'MB/s',
      },
      {
        name: `provider.request_overhead_ms.${family}`,
        value: round(percentile(times, 50), 3),
        unit: 'ms (p50, loopback)',
      },
    ];
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

const BODY_TURNS = 20_000;

/**
 * CPU per chat-completions request body of a long conversation as a turn sends it, in UTF-8 bytes (the encoding
 * undici did after the string was built is in it since the body is bytes): a 40-message history that
 * slides forward a turn at a time, a 7.5 KB system prompt whose tail changes every turn, 12 tools, and a
 * second call with the tool round trip added.
 */
function chatBodyCpuUs(): number {
  const tools: ToolSpec[] = Array.from({ length: 12 }, (_, i) => ({
    name: `tool_${i}`,
    description: 'Does one thing. '.repeat(40),
    parameters: { type: 'object', properties: { path: { type: 'string' } } },
  }));
  const stable = 'You are Tern. Use the tools you have when they help. '.repeat(140);
  const ask: ChatMessage = {
    role: 'assistant',
    content: '',
    tool_calls: [{ id: 'c1', name: 'tool_0', arguments: { path: 'a' } }],
  };
  let history: ChatMessage[] = [];
  let bytes = 0;
  const started = process.cpuUsage();
  for (let turn = 0; turn < BODY_TURNS; turn++) {
    const messages: ChatMessage[] = [...history.slice(-40), { role: 'user', content: `turn ${turn}` }];
    const request: ChatRequest = {
      model: 'bench',
      system: `${stable}\n## Runtime\n\nTurn ${turn}`,
      messages,
      tools: [...tools],
      stream: false,
    };
    bytes += chatCompletionsBody(request).length;
    bytes += chatCompletionsBody({
      ...request,
      messages: [...messages, ask, { role: 'tool', tool_call_id: 'c1', name: 'tool_0', content: 'ok' }],
    }).length;
    history = [
      ...history.slice(-60),
      { role: 'user', content: `turn ${turn}` },
      { role: 'assistant', content: `done ${turn}`, tool_calls: [] },
    ];
  }
  const { user, system } = process.cpuUsage(started);
  return bytes > 0 ? (user + system) / (BODY_TURNS * 2) : 0;
}

export async function bench(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [
    { name: 'provider.chat_body_cpu_us', value: round(chatBodyCpuUs(), 2), unit: 'µs/request' },
  ];
  for (const family of families) rows.push(...(await familyRows(family)));
  return rows;
}
