// bus.request: publish, and the answer the caller picks from what follows, bounded by a timeout and an abort.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { InProcessBus, RequestAbortedError, RequestTimeoutError, type Envelope } from '../../bus/index.js';
import { ManualClock } from '../support/gateway-clock.js';
import { clockOf } from '../../actors/scheduler.js';

const approval = (id: string) => ({
  type: 'approval.requested' as const,
  session: 's1',
  data: {
    approval_id: id,
    tool: 'exec',
    call_id: 'c1',
    prompt: 'run ls?',
    channel: 'cli',
    chat: 'direct:me',
    timeout_ms: 1000,
  },
});
const answered = (id: string, approved: boolean) => ({
  type: 'approval.answered' as const,
  session: 's1',
  data: { approval_id: id, approved, by: 'user' as const },
});
const answerOf = (id: string) => ({
  on: ['approval.answered' as const],
  pick: (event: Envelope<'approval.answered'>) => (event.data.approval_id === id ? event.data.approved : undefined),
});

test('it resolves with the first event the reply picks, skipping the others', async () => {
  const bus = new InProcessBus();
  const answer = bus.request(approval('a1'), { reply: answerOf('a1'), timeoutMs: 1000 });
  bus.publish(answered('b2', false));
  bus.publish(answered('a1', true));
  bus.publish(answered('a1', false));
  assert.is(await answer, true);
});

test('an answer published while the request is delivered is not missed', async () => {
  const bus = new InProcessBus();
  bus.on('approval.requested').subscribe((e) => bus.publish(answered(e.data.approval_id, true)));
  assert.is(await bus.request(approval('a1'), { reply: answerOf('a1'), timeoutMs: 1000 }), true);
});

test('no answer within timeoutMs rejects with RequestTimeoutError, on the clock given', async () => {
  const bus = new InProcessBus();
  const clock = new ManualClock();
  const answer = bus.request(approval('a1'), { reply: answerOf('a1'), timeoutMs: 5000, clock: clockOf(clock) });
  assert.equal(clock.pending(), [5000]);
  clock.advance(5000);
  const error = await answer.catch((e: unknown) => e);
  assert.instance(error, RequestTimeoutError);
  const { code, message } = error as RequestTimeoutError;
  assert.equal([code, message], ['request_timeout', 'no answer to approval.requested within 5000 ms']);
  bus.publish(answered('a1', true));
  assert.equal(clock.pending(), []);
});

test('an abort rejects with RequestAbortedError and its reason, and stops the timer', async () => {
  const bus = new InProcessBus();
  const clock = new ManualClock();
  const stop = new AbortController();
  const options = { reply: answerOf('a1'), timeoutMs: 5000, signal: stop.signal, clock: clockOf(clock) };
  const answer = bus.request(approval('a1'), options);
  stop.abort('the turn ended');
  const error = await answer.catch((e: unknown) => e);
  assert.instance(error, RequestAbortedError);
  const { code, reason } = error as RequestAbortedError;
  assert.equal([code, reason], ['request_aborted', 'the turn ended']);
  assert.equal(clock.pending(), []);
});

test('a signal aborted before the request publishes nothing', async () => {
  const bus = new InProcessBus();
  const seen: string[] = [];
  bus.events$.subscribe((e) => seen.push(e.type));
  const options = { reply: answerOf('a1'), timeoutMs: 1000, signal: AbortSignal.abort('gone') };
  const answer = bus.request(approval('a1'), options);
  assert.instance(await answer.catch((e: unknown) => e), RequestAbortedError);
  assert.equal(seen, []);
});

test.run();
