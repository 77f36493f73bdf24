import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { recover, RESTART_NOTICE } from '../../actors/recovery.js';
import type { EventDraft } from '../../bus/index.js';
import { given } from '../support/actor-kit.js';

const keys = { agent: 'main', session: 's1' };
const reply = { channel: 'tg', chat: 'direct:42', reply_to: '42' };
const settings = {
  model_name: 'fast',
  stream: false,
  max_tool_iterations: 5,
  loop_detection: { enabled: false, repeat_threshold: 3, critical_threshold: 5, window_size: 10 },
};

const received = (id: string): EventDraft => ({
  type: 'message.received',
  data: {
    channel: 'tg',
    kind: 'telegram',
    account: 'default',
    message_id: id,
    chat: 'direct:42',
    reply_to: '42',
    sender: '42',
    text: `text of ${id}`,
    media: [],
  },
});
const routed = (id: string, target: typeof reply | null = reply): EventDraft => ({
  ...keys,
  type: 'message.routed',
  data: {
    message_id: id,
    channel: 'telegram',
    account: 'default',
    chat: 'direct:42',
    sender: '42',
    text: `text of ${id}`,
    session_key: 'key',
    remote: true,
    media: [],
    ...(target ? { reply: target } : {}),
  },
});
const started = (id: string, turn: string): EventDraft => ({
  ...keys,
  turn,
  type: 'turn.started',
  data: { message_id: id, channel: 'telegram', chat: 'direct:42', text: `text of ${id}`, session_key: 'key', settings },
});
const requested = (turn: string): EventDraft => ({
  ...keys,
  turn,
  type: 'provider.requested',
  data: { model_name: 'fast', stream: false, iteration: 1, message_count: 1 },
});
const tool = (turn: string): EventDraft => ({
  ...keys,
  turn,
  type: 'tool.requested',
  data: { call_id: 'c1', name: 'todo', arguments: { action: 'read' } },
});
const completed = (turn: string, text: string): EventDraft => ({
  ...keys,
  turn,
  type: 'turn.completed',
  data: { reply: text, iterations: 1 },
});
const replied = (id: string, turn: string, text: string): EventDraft => ({
  ...keys,
  turn,
  type: 'reply.requested',
  data: { message_id: id, outcome: 'completed', text, key: `tg:${id}:${turn}`, reply },
});
const sent = (key: string, text = 'x', messageId = '900'): EventDraft => ({
  ...keys,
  type: 'message.sent',
  data: { channel: 'tg', chat: 'direct:42', text, send_key: key, part: 0, message_id: messageId, media: [] },
});
const delivered = (id: string, turn: string): EventDraft => ({
  ...keys,
  turn,
  type: 'reply.delivered',
  data: { message_id: id, key: `tg:${id}:${turn}`, parts: 1, failed: false },
});

const sending = (key: string): EventDraft => ({
  ...keys,
  type: 'message.sending',
  data: { channel: 'tg', chat: 'direct:42', send_key: key, part: 0 },
});

/** Given the previous run's events, when the gateway starts again, then what recovery publishes and takes up again. */
function restart(drafts: EventDraft[], resume = true, marked?: ReadonlySet<string>) {
  const stage = given(drafts);
  const recovered = recover(stage.log, stage.bus, { resume, ...(marked ? { marked } : {}) });
  return {
    recovered,
    published: stage.then(),
    requeued: recovered.requeued.map((e) => [e.type, 'message_id' in e.data ? e.data.message_id : undefined]),
  };
}

test('a message accepted and not routed yet is routed again; its id is remembered against a redelivery', () => {
  const { requeued, published, recovered } = restart([received('m1')]);
  assert.equal([requeued, published, recovered.seenInbound], [[['message.received', 'm1']], [], ['tg:m1']]);
});

test('a routed message whose turn never started is handed to its session again', () => {
  const { requeued, published } = restart([received('m1'), routed('m1')]);
  assert.equal([requeued, published], [[['message.routed', 'm1']], []]);
});

test('a turn cut off before any tool ran is closed and its message runs again from the start', () => {
  const { requeued, published, recovered } = restart([
    received('m1'),
    routed('m1'),
    started('m1', 't1'),
    requested('t1'),
  ]);
  assert.equal(published, [
    ['turn.aborted', { reason: 'the process ended before this turn did anything; it runs again' }],
  ]);
  assert.equal([requeued, recovered.cutOffTurns], [[['message.routed', 'm1']], ['t1']]);
});

test('a turn cut off after a tool ran is closed and not run again: the user gets the restart notice', () => {
  const { requeued, published } = restart([
    received('m1'),
    routed('m1'),
    started('m1', 't1'),
    requested('t1'),
    tool('t1'),
  ]);
  assert.equal(published, [
    ['turn.aborted', { reason: 'the process ended while this turn was running' }],
    ['reply.requested', { message_id: 'm1', outcome: 'restarted', text: RESTART_NOTICE, key: 'tg:m1:t1', reply }],
  ]);
  assert.equal(requeued, []);
});

test('a streamed message cut off in the middle is finished with the notice by an edit of what it showed last', () => {
  const { published } = restart([
    received('m1'),
    routed('m1'),
    started('m1', 't1'),
    requested('t1'),
    sent('tg:m1:t1:stream', 'Once upon', '77'),
    {
      ...keys,
      turn: 't1',
      type: 'message.edited',
      data: { channel: 'tg', chat: 'direct:42', message_id: '77', text: 'Once upon a time' },
    },
  ]);
  assert.equal(published.at(-1), [
    'reply.requested',
    {
      message_id: 'm1',
      outcome: 'restarted',
      text: `Once upon a time\n\n${RESTART_NOTICE}`,
      key: 'tg:m1:t1',
      reply,
      edit_of: '77',
    },
  ]);
});

test('a turn that ended without its reply requested gets the reply requested from what it recorded', () => {
  const { published, requeued } = restart([
    received('m1'),
    routed('m1'),
    started('m1', 't1'),
    completed('t1', 'done!'),
  ]);
  assert.equal(
    [published, requeued],
    [[['reply.requested', { message_id: 'm1', outcome: 'completed', text: 'done!', key: 'tg:m1:t1', reply }]], []],
  );
});

test('a reply requested and not delivered is delivered again; the parts already sent are known and skipped', () => {
  const { requeued, recovered, published } = restart([
    received('m1'),
    routed('m1'),
    started('m1', 't1'),
    completed('t1', 'long'),
    replied('m1', 't1', 'long'),
    sent('tg:m1:t1:0'),
  ]);
  assert.equal([requeued, recovered.sentKeys, published], [[['reply.requested', 'm1']], ['tg:m1:t1:0'], []]);
});

test('finished work is left alone, and a second run of a message that was run again is judged by its last turn', () => {
  const { requeued, published } = restart([
    received('m1'),
    routed('m1'),
    started('m1', 't1'),
    completed('t1', 'ok'),
    replied('m1', 't1', 'ok'),
    sent('tg:m1:t1:0'),
    delivered('m1', 't1'),
    received('m2'),
    routed('m2'),
    started('m2', 't2'),
    { ...keys, turn: 't2', type: 'turn.aborted', data: { reason: 'run again' } },
    started('m2', 't3'),
    requested('t3'),
  ]);
  assert.equal(published, [
    ['turn.aborted', { reason: 'the process ended before this turn did anything; it runs again' }],
  ]);
  assert.equal(requeued, [['message.routed', 'm2']]);
});

test('a message with no chat to answer (the terminal, the heartbeat, cron) only has its open turn closed', () => {
  const { requeued, published, recovered } = restart([routed('m1', null), started('m1', 't1'), requested('t1')]);
  assert.equal(
    [requeued, published, recovered.cutOffTurns],
    [[], [['turn.aborted', { reason: 'the process ended while this turn was running' }]], ['t1']],
  );
});

test(
  'without resume (a process that serves no chats) ' + 'open turns are closed and the rest is left for the gateway',
  () => {
    const { requeued, published } = restart(
      [received('m0'), received('m1'), routed('m1'), started('m1', 't1'), requested('t1'), tool('t1')],
      false,
    );
    assert.equal(
      [requeued, published],
      [[], [['turn.aborted', { reason: 'the process ended while this turn was running' }]]],
    );
  },
);

test('recovery reads from the last checkpoint: work finished before it is not looked at again', () => {
  const before = [received('m1'), routed('m1'), started('m1', 't1'), requested('t1')];
  const { requeued, published, recovered } = restart([
    ...before,
    { type: 'recovery.checkpointed', data: { from_seq: before.length + 2 } },
    received('m2'),
  ]);
  assert.equal([requeued, published, recovered.fromSeq], [[['message.received', 'm2']], [], 6]);
});

const cutAtSend = [
  received('m1'),
  routed('m1'),
  started('m1', 't1'),
  completed('t1', 'hi'),
  replied('m1', 't1', 'hi'),
  sending('tg:m1:t1:0'),
];

test(
  'a part whose intent is in the log and in the journal may have reached the chat: ' +
    'not sent again, named as unconfirmed',
  () => {
    const { recovered, requeued } = restart(cutAtSend, true, new Set(['tg:m1:t1:0']));
    assert.equal(
      [requeued, recovered.sentKeys, recovered.unconfirmed],
      [[['reply.requested', 'm1']], ['tg:m1:t1:0'], [{ channel: 'tg', chat: 'direct:42', send_key: 'tg:m1:t1:0' }]],
    );
  },
);

test(
  'a part whose intent is in the log but that the journal never marked never left: ' +
    'its reply is delivered again, the part with it',
  () => {
    const { recovered, requeued } = restart(cutAtSend, true, new Set(['tg:other:t9:0']));
    assert.equal([requeued, recovered.sentKeys, recovered.unconfirmed], [[['reply.requested', 'm1']], [], []]);
  },
);

test(
  'without a journal (a log from before it, ' +
    'a cluster account) every intent without its message.sent counts as maybe sent',
  () => {
    const { recovered } = restart(cutAtSend, true);
    assert.equal([recovered.sentKeys, recovered.unconfirmed.map((u) => u.send_key)], [['tg:m1:t1:0'], ['tg:m1:t1:0']]);
  },
);

test('a part sent and confirmed is neither unconfirmed nor sent again, journal or not', () => {
  const { recovered } = restart(
    [...cutAtSend, sent('tg:m1:t1:0'), delivered('m1', 't1')],
    true,
    new Set(['tg:m1:t1:0']),
  );
  assert.equal([recovered.requeued, recovered.sentKeys, recovered.unconfirmed], [[], ['tg:m1:t1:0'], []]);
});

test.run();
