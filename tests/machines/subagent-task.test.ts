import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { assign, createActor, fromPromise, SimulatedClock, waitFor } from 'xstate';
import { stateName } from '../../actors/machine-state.js';
import {
  subagentTaskMachine,
  type ChildOutcome,
  type SubagentStatus,
  type SubagentTaskContext,
  type SubagentTaskEvent,
  type SubagentTaskInput,
} from '../../machines/subagent-task.js';

const input: SubagentTaskInput = {
  id: 'sa_1',
  mode: 'spawn',
  agent: 'main',
  task: 'count',
  depth: 1,
  sessionKey: 'v=1|agent=main|channel=subagent|account=default|chat=sa_1',
  parent: { agent: 'main', session: 'sk_v1_p', turn: 't_p', root: 'sk_v1_p' },
  origin: { channel: 'cli', chat: 'direct:u', remote: false },
  createdAt: 0,
  slotWaitMs: 30_000,
  timeoutMs: 300_000,
};

/**
 * A task machine on a simulated clock whose child turn ends when the test says (`finish`), or never; `ended` and
 * `aborted` record what the host was told.
 */
function start() {
  const clock = new SimulatedClock();
  const ended: Array<{
    status: SubagentStatus;
    reason?: string;
    answer?: string;
    startedAt?: number;
    endedAt?: number;
  }> = [];
  const aborted: boolean[] = [];
  let finish: (outcome: ChildOutcome | Error) => void = () => {};
  const machine = subagentTaskMachine.provide({
    actors: {
      runChild: fromPromise<ChildOutcome, SubagentTaskContext>(
        ({ signal }) =>
          new Promise((resolve, reject) => {
            signal.addEventListener('abort', () => aborted.push(true));
            finish = (outcome) => (outcome instanceof Error ? reject(outcome) : resolve(outcome));
          }),
      ),
    },
    actions: {
      stampStart: assign({ startedAt: () => clock.now() }),
      stampEnd: assign({ endedAt: () => clock.now() }),
      ended: ({ context }, { status }) =>
        void ended.push({
          status,
          reason: context.reason,
          answer: context.answer,
          startedAt: context.startedAt,
          endedAt: context.endedAt,
        }),
    },
  });
  const actor = createActor(machine, { input, clock }).start();
  return {
    actor,
    clock,
    ended,
    aborted,
    send: (event: SubagentTaskEvent) => actor.send(event),
    finish: (outcome: ChildOutcome | Error) => finish(outcome),
    state: () => stateName(actor.getSnapshot().value),
  };
}

/** Resolves once the task has left `running` (its child's outcome arrives in a later microtask). */
const ended = (t: ReturnType<typeof start>) => waitFor(t.actor, () => t.state() !== 'running');

const test = suite('subagent task machine');

test(
  'given a new task, it waits for a slot; SLOT_FREE runs its child; ' +
    'the child completing completes it with the answer',
  async () => {
    const t = start();
    assert.is(t.state(), 'waiting');
    t.clock.increment(1000);
    t.send({ type: 'SLOT_FREE' });
    assert.is(t.state(), 'running');
    t.clock.increment(2000);
    t.finish({ outcome: 'completed', reply: '42', turn: 't_c' });
    await ended(t);
    assert.is(t.state(), 'completed');
    assert.equal(t.ended, [{ status: 'completed', reason: undefined, answer: '42', startedAt: 1000, endedAt: 3000 }]);
    assert.is(t.actor.getSnapshot().context.turn, 't_c');
  },
);

test('waiting longer than slotWait fails it, saying why; a later SLOT_FREE changes nothing', () => {
  const t = start();
  t.clock.increment(29_999);
  assert.is(t.state(), 'waiting');
  t.clock.increment(1);
  assert.is(t.state(), 'failed');
  assert.equal(
    t.ended.map((e) => [e.status, e.reason]),
    [['failed', 'no free subagent slot in this session within 30 s; try again when a running task has ended']],
  );
  t.send({ type: 'SLOT_FREE' });
  assert.is(t.state(), 'failed');
});

test('running longer than taskTimeout fails it and aborts the child', () => {
  const t = start();
  t.send({ type: 'SLOT_FREE' });
  t.clock.increment(300_000);
  assert.is(t.state(), 'failed');
  assert.equal(t.aborted, [true]);
  assert.equal(
    t.ended.map((e) => [e.status, e.reason]),
    [['failed', 'the subagent did not finish within 5 min and was stopped']],
  );
});

test('CANCEL while waiting or running cancels it with the reason; running, the child is aborted', () => {
  const waiting = start();
  waiting.send({ type: 'CANCEL', reason: '/stop' });
  assert.equal([waiting.state(), waiting.ended[0]?.reason, waiting.aborted], ['canceled', '/stop', []]);
  const running = start();
  running.send({ type: 'SLOT_FREE' });
  running.send({ type: 'CANCEL', reason: 'the gateway is stopping' });
  assert.equal(
    [running.state(), running.ended[0]?.reason, running.aborted],
    ['canceled', 'the gateway is stopping', [true]],
  );
});

test('a child turn that fails, stops, is cut off or cannot run ends the task accordingly', async () => {
  const cases: Array<[ChildOutcome | Error, string, string | undefined]> = [
    [
      { outcome: 'failed', reply: 'Sorry, the model could not be reached: x' },
      'failed',
      'Sorry, the model could not be reached: x',
    ],
    [{ outcome: 'stopped', reply: 'I stopped after 20 rounds' }, 'failed', 'I stopped after 20 rounds'],
    [{ outcome: 'aborted', reply: '' }, 'canceled', "the subagent's turn was cut off"],
    [new Error('no such agent'), 'failed', 'the subagent could not run: no such agent'],
  ];
  for (const [outcome, state, reason] of cases) {
    const t = start();
    t.send({ type: 'SLOT_FREE' });
    t.finish(outcome);
    await ended(t);
    assert.equal([t.state(), t.ended[0]?.reason], [state, reason]);
  }
});

test('a task ends once: CANCEL after its end changes nothing', async () => {
  const t = start();
  t.send({ type: 'SLOT_FREE' });
  t.finish({ outcome: 'completed', reply: 'ok' });
  await ended(t);
  t.send({ type: 'CANCEL', reason: 'late' });
  assert.equal(
    t.ended.map((e) => e.status),
    ['completed'],
  );
});

test.run();
