// The four requests over the bus (ask, deliveries, approvals, subagent tasks) each end when no answer comes within
// their timeout, and when they are abandoned: nobody waits for an answer forever. Timers run on a hand-moved clock.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Deliveries, DELIVERY_TIMEOUT_MS } from '../../actors/deliveries.js';
import { ApprovalDesk } from '../../actors/hooks/approval-desk.js';
import { ask } from '../../actors/routing.js';
import { clockOf } from '../../actors/scheduler.js';
import { child } from '../support/child-turn.js';
import { CANCEL_GRACE_MS, sessionHost } from '../../actors/subagents/session-host.js';
import type { RequestAbortedError, RequestTimeoutError } from '../../bus/index.js';
import { given } from '../support/actor-kit.js';
import { ManualClock } from '../support/gateway-clock.js';

const codeOf = (error: unknown) => {
  const { code, message } = error as RequestTimeoutError | RequestAbortedError;
  return [code, message];
};
const message = {
  agent: 'main',
  session_key: 'agent:main:cli:direct:me',
  message_id: 'm1',
  channel: 'cli',
  chat: 'direct:me',
  sender: 'me',
  text: 'hello',
  remote: false,
};

test('ask: no reply within timeoutMs rejects with request_timeout; an abort with request_aborted', async () => {
  const stage = given();
  const clock = new ManualClock();
  const late = ask(stage.bus, message, { timeoutMs: 90_000, clock: clockOf(clock) });
  assert.equal(clock.pending(), [90_000]);
  clock.advance(90_000);
  assert.equal(codeOf(await late.catch((e: unknown) => e)), [
    'request_timeout',
    'no answer to message.routed within 90000 ms',
  ]);
  const stop = new AbortController();
  const abandoned = ask(stage.bus, { ...message, message_id: 'm2' }, { signal: stop.signal, clock: clockOf(clock) });
  stop.abort('the terminal closed');
  assert.equal(codeOf(await abandoned.catch((e: unknown) => e)), [
    'request_aborted',
    'the request message.routed was abandoned: the terminal closed',
  ]);
  assert.equal(clock.pending(), []);
});

const delivery = (key: string) => ({
  message_id: 'h1',
  key,
  text: 'the heartbeat says hi',
  reply: { channel: 'telegram', chat: 'direct:42', reply_to: '' },
  outcome: 'message' as const,
});

test(
  'deliveries: a text the outbox never confirms is false after DELIVERY_TIMEOUT_MS; ' + 'closing answers false',
  async () => {
    const stage = given();
    const clock = new ManualClock();
    const deliveries = new Deliveries(stage.bus, clockOf(clock));
    const unconfirmed = deliveries.send(delivery('hb:1'));
    assert.equal(clock.pending(), [DELIVERY_TIMEOUT_MS]);
    clock.advance(DELIVERY_TIMEOUT_MS);
    assert.is(await unconfirmed, false);
    const waiting = deliveries.send(delivery('hb:2'));
    deliveries.close();
    assert.equal([await waiting, clock.pending()], [false, []]);
  },
);

const approval = (desk: ApprovalDesk, signal: AbortSignal) =>
  desk.ask(
    {
      keys: { agent: 'main', session: 's1', turn: 't1' },
      call: { id: 'c1', name: 'exec', arguments: { command: 'ls' } },
      channel: 'cli',
      chat: 'direct:me',
      timeoutMs: 5000,
      clean: (text) => text,
    },
    signal,
  );

test('approvals: no answer within the timeout denies and says so; a turn that ends denies what waits', async () => {
  const stage = given();
  const clock = new ManualClock();
  const desk = new ApprovalDesk(stage.bus, clockOf(clock));
  const late = approval(desk, new AbortController().signal);
  clock.advance(5000);
  assert.equal(await late, { approved: false, reason: 'no answer in the chat within 5 s' });
  const turn = new AbortController();
  const ended = approval(desk, turn.signal);
  turn.abort('the turn ended');
  assert.equal(await ended, { approved: false, reason: 'the turn ended before anyone answered' });
  const answers = stage.published.flatMap((e) =>
    e.type === 'approval.answered' ? [[e.data.by, e.data.approved]] : [],
  );
  assert.equal(
    [answers, clock.pending()],
    [
      [
        ['timeout', false],
        ['turn_ended', false],
      ],
      [],
    ],
  );
});

test(
  'subagent tasks: a session that never answers fails the task; ' + 'a cancel before the turn starts aborts it',
  async () => {
    const stage = given();
    const clock = new ManualClock();
    const host = sessionHost(stage.bus, clockOf(clock));
    const silent = host.run(child, new AbortController().signal);
    assert.equal(clock.pending(), [60_000 + CANCEL_GRACE_MS]);
    clock.advance(60_000 + CANCEL_GRACE_MS);
    assert.equal(await silent, { outcome: 'failed', reply: "the subagent's session did not answer" });
    const cancel = new AbortController();
    const canceled = host.run({ ...child, link: { ...child.link, task: 'task_2' } }, cancel.signal);
    cancel.abort('the parent turn ended');
    assert.equal([await canceled, clock.pending()], [{ outcome: 'aborted', reply: '' }, []]);
  },
);

test.run();
