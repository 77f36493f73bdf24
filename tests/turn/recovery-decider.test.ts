// Recovery as a decider: the log's tail folded by `evolve`, the restart answered by `decide`; then the same through
// `recover` on a live bus, where "nothing happened" is read once the bus went quiet.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  decide,
  evolve,
  initialRecoveryState,
  recover,
  RESTART_NOTICE,
  type RecoverOptions,
} from '../../actors/recovery.js';
import type { Envelope, EventDraft } from '../../bus/index.js';
import { given } from '../support/actor-kit.js';
import { DeciderSpecification, thenNothingOn } from '../support/decider-spec.js';

const keys = { agent: 'main', session: 's1' };
const reply = { channel: 'tg', chat: 'direct:42', reply_to: '42' };
const loop = { enabled: false, repeat_threshold: 3, critical_threshold: 5, window_size: 10 };
const settings = { model_name: 'fast', stream: false, max_tool_iterations: 5, loop_detection: loop };
const text = (id: string) => `text of ${id}`;

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
    text: text(id),
    media: [],
  },
});
const routed = (id: string): EventDraft => ({
  ...keys,
  type: 'message.routed',
  data: {
    message_id: id,
    channel: 'telegram',
    account: 'default',
    chat: 'direct:42',
    sender: '42',
    text: text(id),
    session_key: 'key',
    remote: true,
    media: [],
    reply,
  },
});
const started = (id: string, turn: string): EventDraft => ({
  ...keys,
  turn,
  type: 'turn.started',
  data: { message_id: id, channel: 'telegram', chat: 'direct:42', text: text(id), session_key: 'key', settings },
});
const tool = (turn: string): EventDraft => ({
  ...keys,
  turn,
  type: 'tool.requested',
  data: { call_id: 'c1', name: 'todo', arguments: { action: 'read' } },
});
const completed = (turn: string, answer: string): EventDraft => ({
  ...keys,
  turn,
  type: 'turn.completed',
  data: { reply: answer, iterations: 1 },
});
const replied = (id: string, turn: string, answer: string): EventDraft => ({
  ...keys,
  turn,
  type: 'reply.requested',
  data: { message_id: id, outcome: 'completed', text: answer, key: `tg:${id}:${turn}`, reply },
});
const delivered = (id: string, turn: string): EventDraft => ({
  ...keys,
  turn,
  type: 'reply.delivered',
  data: { message_id: id, key: `tg:${id}:${turn}`, parts: 1, failed: false },
});

/** The previous run's log: the drafts stamped in order, as the restart reads them. */
const logged = (drafts: EventDraft[]): Envelope[] => given(drafts).log.read();

const restart = DeciderSpecification.for({
  initialState: initialRecoveryState,
  evolve,
  decide: (state, options: RecoverOptions) => decide(state, options).publish,
});
const GATEWAY: RecoverOptions = { resume: true };
const TERMINAL: RecoverOptions = { resume: false };

const decider = suite('recovery decider: given the log, when the process starts again, then it publishes');

decider('a turn cut off after a tool ran: closed, and the user gets the restart notice', () => {
  restart(logged([received('m1'), routed('m1'), started('m1', 't1'), tool('t1')]))
    .when(GATEWAY)
    .then([
      { ...keys, turn: 't1', type: 'turn.aborted', data: { reason: 'the process ended while this turn was running' } },
      {
        ...keys,
        turn: 't1',
        type: 'reply.requested',
        data: { message_id: 'm1', outcome: 'restarted', text: RESTART_NOTICE, key: 'tg:m1:t1', reply },
      },
    ]);
});

decider('a turn that ended before its reply was requested: the reply is requested from what it recorded', () => {
  restart(logged([received('m1'), routed('m1'), started('m1', 't1'), completed('t1', 'forty-two')]))
    .when(GATEWAY)
    .then([
      {
        ...keys,
        turn: 't1',
        type: 'reply.requested',
        data: { message_id: 'm1', outcome: 'completed', text: 'forty-two', key: 'tg:m1:t1', reply },
      },
    ]);
});

decider('a process that serves no chats closes the open turn and takes up nothing', () => {
  restart(logged([received('m1'), routed('m1'), started('m1', 't1'), tool('t1')]))
    .when(TERMINAL)
    .then([
      { ...keys, turn: 't1', type: 'turn.aborted', data: { reason: 'the process ended while this turn was running' } },
    ]);
});

decider('a message answered and delivered: nothing happens', () => {
  const done = [
    received('m1'),
    routed('m1'),
    started('m1', 't1'),
    completed('t1', 'hi'),
    replied('m1', 't1', 'hi'),
    delivered('m1', 't1'),
  ];
  restart(logged(done)).when(GATEWAY).thenNothingHappened();
});

decider('evolve folds the tail: seen inbound ids and sent keys are what the restart hands on', () => {
  const state = logged([received('m1'), routed('m1')]).reduce(evolve, initialRecoveryState());
  const decision = decide(state, GATEWAY);
  const handedOn = [decision.seenInbound, decision.requeued.map((e) => e.type), decision.openFrom];
  assert.equal(handedOn, [['tg:m1'], ['message.routed'], 1]);
});

decider.run();

const live = suite('recovery on a live bus: then nothing happened, once the bus went quiet');

live('a finished conversation publishes nothing on restart and hands back no work', async () => {
  const stage = given([
    received('m1'),
    routed('m1'),
    started('m1', 't1'),
    completed('t1', 'hi'),
    replied('m1', 't1', 'hi'),
    delivered('m1', 't1'),
  ]);
  const recovered = recover(stage.log, stage.bus, GATEWAY);
  assert.equal([recovered.requeued, recovered.cutOffTurns, recovered.fromSeq], [[], [], 7]);
  await thenNothingOn(stage.bus, stage.published, 0, ['turn.aborted', 'reply.requested'], { quietMs: 100 });
});

live.run();
