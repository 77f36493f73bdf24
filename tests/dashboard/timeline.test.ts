import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spansOf } from '../../adapters/launcher/api/timeline.js';
import type { Envelope } from '../../bus/index.js';

const keys = { agent: 'main', session: 's', turn: 't' };
let seq = 0;
const at = <T extends Envelope['type']>(ms: number, type: T, data: Extract<Envelope, { type: T }>['data']) =>
  ({ ...keys, seq: ++seq, at: 1000 + ms, type, data }) as Envelope;
const usage = { input_tokens: 1200, output_tokens: 300, cached_input_tokens: 1024, reasoning_tokens: 256 };
/** $2 input, $0.50 cached input, $8 output per million tokens for `fast`; no price for any other model. */
const priceOf = (model: string) =>
  model === 'fast' ? { input: 2, output: 8, cached_input: 0.5, cache_write_input: 2 } : undefined;

test(
  'a turn folds into a waterfall: building the prompt, model calls with tokens and cost, ' +
    'their chunks and tool calls with arguments and result size, from turn start',
  () => {
    const events: Envelope[] = [
      at(0, 'turn.started', {
        message_id: 'm',
        channel: 'pico',
        chat: 'direct:x',
        text: 'hi',
        session_key: 'k',
        settings: {
          model_name: 'fast',
          stream: true,
          max_tool_iterations: 5,
          loop_detection: { enabled: false, repeat_threshold: 3, critical_threshold: 6, window_size: 20 },
        },
      }),
      at(3, 'prompt.built', {
        system: 'sys',
        messages: [{ role: 'user', content: 'hi' }],
        tools: ['read_file', 'exec'],
      }),
      at(5, 'provider.requested', { model_name: 'fast', stream: true, iteration: 1, message_count: 1 }),
      at(20, 'provider.chunk', { kind: 'text', delta: 'a' }),
      at(30, 'provider.chunk', { kind: 'text', delta: 'b' }),
      at(40, 'provider.responded', {
        text: 'ab',
        tool_calls: [{ id: 'c1', name: 'read_file', arguments: { path: 'x' } }],
        usage,
        finish_reason: 'tool_calls',
        iteration: 1,
      }),
      at(41, 'tool.requested', { call_id: 'c1', name: 'read_file', arguments: { path: 'x' } }),
      at(61, 'tool.completed', { call_id: 'c1', name: 'read_file', ok: false, content: 'no such file' }),
      at(62, 'provider.requested', { model_name: 'fast', stream: true, iteration: 2, message_count: 3 }),
      at(90, 'provider.failed', { code: 'network', message: 'reset', model_name: 'fast' }),
    ];
    assert.equal(spansOf(events, priceOf), [
      { kind: 'prompt', label: 'building prompt', start: 0, end: 3, ms: 3, ok: true, messages: 1, tools: 2 },
      {
        kind: 'model',
        label: 'model call 1',
        start: 5,
        end: 40,
        ms: 35,
        ok: true,
        model: 'fast',
        iteration: 1,
        tool_calls: 1,
        usage: {
          input_tokens: 1200,
          cached_input_tokens: 1024,
          output_tokens: 300,
          reasoning_tokens: 256,
          cost_usd: 0.003264,
        },
      },
      { kind: 'chunks', label: '2 chunks', start: 20, end: 30, ms: 10, ok: true, count: 2 },
      {
        kind: 'tool',
        label: 'read_file',
        start: 41,
        end: 61,
        ms: 20,
        ok: false,
        call_id: 'c1',
        name: 'read_file',
        arguments: '{"path":"x"}',
        result_chars: 12,
        error: 'no such file',
      },
      {
        kind: 'model',
        label: 'model call 2',
        start: 62,
        end: 90,
        ms: 28,
        ok: false,
        model: 'fast',
        iteration: 2,
        tool_calls: 0,
        error: 'reset (network)',
      },
    ]);
  },
);

test.run();
