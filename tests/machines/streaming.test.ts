import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createActor } from 'xstate';
import { streamingMachine, type StreamingEvent, type StreamingInput } from '../../machines/streaming.js';

type Sent = ['create' | 'update', string];

function start(input: StreamingInput = { throttle_seconds: 1, min_growth_chars: 5 }) {
  const sent: Sent[] = [];
  const machine = streamingMachine.provide({
    actions: {
      createMessage: (_, { text }) => sent.push(['create', text]),
      updateMessage: (_, { text }) => sent.push(['update', text]),
    },
  });
  const actor = createActor(machine, { input }).start();
  const send = (...events: StreamingEvent[]) => events.forEach((e) => actor.send(e));
  const state = () => actor.getSnapshot().value;
  const output = () => actor.getSnapshot().output;
  return { send, state, output, sent };
}

const chunk = (text: string, at: number): StreamingEvent => ({ type: 'CHUNK', text, at });
const done = (text: string, at: number): StreamingEvent => ({ type: 'STREAM_DONE', text, at });
const failed: StreamingEvent = { type: 'STREAM_FAILED' };

test('not_started: a chunk with no visible text creates nothing', () => {
  const { send, state, sent } = start();
  send(chunk('  \n', 0));
  assert.is(state(), 'not_started');
  assert.equal(sent, []);
});

test('not_started: the first visible chunk creates the assistant message', () => {
  const { send, state, sent } = start();
  send(chunk('Hel', 1000));
  assert.equal(state(), { showing: 'message_created' });
  assert.equal(sent, [['create', 'Hel']]);
});

test('message_created: a chunk before throttle_seconds have passed is held back', () => {
  const { send, state, sent } = start();
  send(chunk('Hel', 1000), chunk('Hello, world', 1999));
  assert.equal(state(), { showing: 'message_created' });
  assert.equal(sent, [['create', 'Hel']]);
});

test('message_created: a chunk that grew less than min_growth_chars is held back', () => {
  const { send, state, sent } = start();
  send(chunk('Hel', 1000), chunk('Hello', 5000));
  assert.equal(state(), { showing: 'message_created' });
  assert.equal(sent, [['create', 'Hel']]);
});

test('message_created: a chunk meeting throttle and growth updates the same message', () => {
  const { send, state, sent } = start();
  send(chunk('Hel', 1000), chunk('Hello, w', 2000));
  assert.equal(state(), { showing: 'message_updated' });
  assert.equal(sent, [
    ['create', 'Hel'],
    ['update', 'Hello, w'],
  ]);
});

test('message_updated: throttle and growth are measured from the last update', () => {
  const { send, state, sent } = start();
  send(chunk('Hel', 1000), chunk('Hello, w', 2000), chunk('Hello, world!', 2500), chunk('Hello, world! Bye', 3000));
  assert.equal(state(), { showing: 'message_updated' });
  assert.equal(sent, [
    ['create', 'Hel'],
    ['update', 'Hello, w'],
    ['update', 'Hello, world! Bye'],
  ]);
});

test('web-UI defaults (throttle 0, growth 1) show every chunk that adds text', () => {
  const { send, sent } = start({ throttle_seconds: 0, min_growth_chars: 1 });
  send(chunk('a', 5), chunk('ab', 5), chunk('ab', 5), chunk('abc', 5));
  assert.equal(sent, [
    ['create', 'a'],
    ['update', 'ab'],
    ['update', 'abc'],
  ]);
});

test('showing: the end of the stream always flushes a final text that was held back', () => {
  const { send, state, output, sent } = start();
  send(chunk('Hel', 1000), chunk('Hello', 1100), done('Hello!', 1200));
  assert.is(state(), 'ended');
  assert.is(output(), 'streamed');
  assert.equal(sent, [
    ['create', 'Hel'],
    ['update', 'Hello!'],
  ]);
});

test('showing: the end of the stream sends nothing more when the final text is already shown', () => {
  const { send, output, sent } = start();
  send(chunk('Hel', 1000), chunk('Hello, w', 2000), done('Hello, w', 2100));
  assert.is(output(), 'streamed');
  assert.equal(sent, [
    ['create', 'Hel'],
    ['update', 'Hello, w'],
  ]);
});

test('showing: a failure after a visible chunk ends the stream with what arrived and no second answer', () => {
  const { send, state, output, sent } = start();
  send(chunk('Hel', 1000), chunk('Hello', 1100), failed);
  assert.is(state(), 'ended');
  assert.is(output(), 'cut_after_chunk');
  assert.equal(sent, [
    ['create', 'Hel'],
    ['update', 'Hello'],
  ]);
});

test('showing: a failure when everything that arrived is shown sends nothing more', () => {
  const { send, output, sent } = start();
  send(chunk('Hel', 1000), failed);
  assert.is(output(), 'cut_after_chunk');
  assert.equal(sent, [['create', 'Hel']]);
});

test('not_started: an answer that ends before any chunk is created whole', () => {
  const { send, state, output, sent } = start();
  send(done('Hi there', 10));
  assert.is(state(), 'ended');
  assert.is(output(), 'streamed');
  assert.equal(sent, [['create', 'Hi there']]);
});

test('not_started: an answer with no text (tool calls only) shows nothing', () => {
  const { send, output, sent } = start();
  send(done('', 10));
  assert.is(output(), 'nothing_shown');
  assert.equal(sent, []);
});

test('not_started: a failure before any visible chunk retries once through the normal request', () => {
  const { send, state, sent } = start();
  send(chunk(' ', 1), failed);
  assert.is(state(), 'retrying_without_stream');
  assert.equal(sent, []);
});

test('retrying_without_stream: the normal answer ends it and is sent the normal way, not streamed', () => {
  const { send, state, output, sent } = start();
  send(failed, chunk('late', 5), done('Full answer', 10));
  assert.is(state(), 'ended');
  assert.is(output(), 'answered_without_stream');
  assert.equal(sent, []);
});

test('retrying_without_stream: a second failure ends it; there is no further retry', () => {
  const { send, state, output } = start();
  send(failed, failed);
  assert.is(state(), 'ended');
  assert.is(output(), 'failed_after_retry');
});

test.run();
