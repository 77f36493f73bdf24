import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SseParser, type SseEvent } from '../../adapters/providers/sse.js';

function parseInPieces(text: string, size: number): SseEvent[] {
  const parser = new SseParser();
  const bytes = Buffer.from(text);
  const events: SseEvent[] = [];
  for (let i = 0; i < bytes.length; i += size) events.push(...parser.push(bytes.subarray(i, i + size)));
  return [...events, ...parser.end()];
}

const cases: Array<{ name: string; text: string; events: SseEvent[] }> = [
  { name: '\\n line ends', text: 'data: a\n\ndata: b\n\n', events: [{ event: 'message', data: 'a' }, { event: 'message', data: 'b' }] },
  { name: '\\r\\n line ends', text: 'data: {"x":1}\r\n\r\ndata: {"x":2}\r\n\r\n', events: [{ event: 'message', data: '{"x":1}' }, { event: 'message', data: '{"x":2}' }] },
  { name: '\\r line ends', text: 'event: ping\rdata: 1\r\r', events: [{ event: 'ping', data: '1' }] },
  { name: 'multi-line data joins with \\n', text: 'data: line one\ndata: line two\ndata\n\n', events: [{ event: 'message', data: 'line one\nline two\n' }] },
  { name: 'comments and unknown fields are ignored', text: ': keep-alive\nid: 7\nretry: 100\nfoo: bar\ndata: x\n\n', events: [{ event: 'message', data: 'x' }] },
  { name: 'event names apply to one event only', text: 'event: message_start\ndata: {}\n\ndata: plain\n\n', events: [{ event: 'message_start', data: '{}' }, { event: 'message', data: 'plain' }] },
  { name: 'only one leading space is stripped', text: 'data:  two spaces\ndata:none\n\n', events: [{ event: 'message', data: ' two spaces\nnone' }] },
  { name: 'an event without data is not dispatched', text: 'event: empty\n\ndata: after\n\n', events: [{ event: 'message', data: 'after' }] },
  { name: 'multi-byte UTF-8 survives any split', text: 'data: Zürich → 東京 🌧\n\n', events: [{ event: 'message', data: 'Zürich → 東京 🌧' }] },
  { name: 'a last event without its blank line still arrives at the end', text: 'data: [DONE]', events: [{ event: 'message', data: '[DONE]' }] },
];

for (const { name, text, events } of cases) {
  test(`sse: ${name}, whatever the chunk size`, () => {
    for (const size of [1, 2, 3, 5, text.length]) assert.equal(parseInPieces(text, size), events, `pieces of ${size}`);
  });
}

test('sse: string input works like bytes and events come out as soon as they are complete', () => {
  const parser = new SseParser();
  assert.equal(parser.push('data: a\n'), []);
  assert.equal(parser.push('\ndata: b\r'), [{ event: 'message', data: 'a' }]);
  assert.equal(parser.push('\n\r\n'), [{ event: 'message', data: 'b' }]);
  assert.equal(parser.end(), []);
});

test.run();
