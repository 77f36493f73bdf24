// The subagent host and the agent actor talk through events only: the host routes a task to a new session and
// publishes `turn.abort.requested` / `session.release.requested`; the agent actor consumes them.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { sessionHost } from '../../actors/subagents/session-host.js';
import { child } from '../support/child-turn.js';
import { sessionIdOf, type Envelope } from '../../bus/index.js';
import { given } from '../support/actor-kit.js';
import { nextEvent } from '../support/next-event.js';
import { startTurnFixture, type TurnFixture } from '../support/turn-fixture.js';

const keys = { agent: 'research', session: sessionIdOf(child.sessionKey), parent: 'turn_p', task: 'task_1' };
const routed = {
  type: 'message.routed',
  ...keys,
  data: { ...child.message, session_key: child.sessionKey, delegated_by: 'main' },
};
const shape = (e: Envelope) => ({
  type: e.type,
  agent: e.agent,
  session: e.session,
  parent: e.parent,
  task: e.task,
  data: e.data,
});
const microtasks = () => new Promise((resolve) => setImmediate(resolve));

const host = suite('subagent host (given/when/then on the bus)');

host(
  'when a task runs, then its message is routed to a new session; ' +
    'when that session replies, then the task has its outcome and the session is released',
  async () => {
    const stage = given();
    const outcome = sessionHost(stage.bus).run(child, new AbortController().signal);
    stage.when({
      ...keys,
      turn: 't1',
      type: 'turn.started',
      data: {
        message_id: 'task_1',
        channel: 'subagent',
        chat: 'direct:main',
        text: 'find the answer',
        session_key: child.sessionKey,
        settings: {
          model_name: 'fast',
          stream: false,
          max_tool_iterations: 5,
          loop_detection: { enabled: false, repeat_threshold: 3, critical_threshold: 5, window_size: 10 },
        },
      },
    });
    stage.when({
      ...keys,
      turn: 't1',
      type: 'reply.requested',
      data: { message_id: 'task_1', outcome: 'completed', text: '42', key: 'subagent:task_1:t1' },
    });
    assert.equal(await outcome, { outcome: 'completed', reply: '42', turn: 't1' });
    await microtasks();
    assert.equal(
      stage.published.filter((e) => e.type === 'message.routed' || e.type === 'session.release.requested').map(shape),
      [routed, { type: 'session.release.requested', ...keys, data: { reason: 'the subagent task ended' } }],
    );
  },
);

host(
  'when a task is canceled before its turn started, ' +
    'then its turn is asked to abort, the task ends aborted and its session is released',
  async () => {
    const stage = given();
    const cancel = new AbortController();
    const outcome = sessionHost(stage.bus).run(child, cancel.signal);
    cancel.abort('the parent was stopped');
    assert.equal(await outcome, { outcome: 'aborted', reply: '' });
    await microtasks();
    assert.equal(stage.published.map(shape), [
      routed,
      { type: 'turn.abort.requested', ...keys, data: { reason: 'the parent was stopped' } },
      { type: 'session.release.requested', ...keys, data: { reason: 'the subagent task ended' } },
    ]);
  },
);

host.run();

const agent = suite('agent actor: a task session is aborted and released by events');

async function arrived(f: TurnFixture, count: number): Promise<void> {
  while (f.vendor.requests.length < count) await new Promise((resolve) => setImmediate(resolve));
}

agent(
  'given a task turn waiting on its model, when turn.abort.requested is published, then it ends aborted; ' +
    'when session.release.requested is, then its session leaves the board',
  async () => {
    const f = await startTurnFixture();
    try {
      const task = {
        agent: 'main',
        session: sessionIdOf('agent:main:subagent:task_9'),
        parent: 'turn_p',
        task: 'task_9',
      };
      f.vendor.reply({ status: 200, headers: { 'content-type': 'application/json' }, chunks: [], after: 'stall' });
      f.runtime.bus.publish({
        ...task,
        type: 'message.routed',
        data: {
          ...child.message,
          message_id: 'task_9',
          session_key: 'agent:main:subagent:task_9',
          delegated_by: 'main',
        },
      });
      await arrived(f, 1);
      const from = f.events.length;
      f.runtime.bus.publish({ ...task, type: 'turn.abort.requested', data: { reason: 'canceled by its parent' } });
      const replied = (e: Envelope) => e.type === 'reply.requested' && e.session === task.session;
      await nextEvent(f.runtime.bus, f.events, 'reply', replied, { from });
      const turn = f.events.find((e) => e.type === 'turn.started')?.turn;
      const ofSession = (e: Envelope) =>
        e.session === task.session &&
        (e.type === 'turn.aborted' ||
          e.type === 'reply.requested' ||
          (e.type === 'actor.stopped' && e.data.machine === 'session'));
      const ends = (after: number) => f.events.slice(after).flatMap((e) => (ofSession(e) ? [[e.type, e.data]] : []));
      assert.equal(ends(from), [
        ['turn.aborted', { reason: 'canceled by its parent' }],
        ['reply.requested', { message_id: 'task_9', outcome: 'aborted', text: '', key: `subagent:task_9:${turn}` }],
      ]);
      const released = f.events.length;
      f.runtime.bus.publish({
        ...task,
        type: 'session.release.requested',
        data: { reason: 'the subagent task ended' },
      });
      assert.equal(ends(released), [
        ['actor.stopped', { actor: `session:${task.session}`, machine: 'session', reason: 'the subagent task ended' }],
      ]);
    } finally {
      await f.close();
    }
  },
);

agent.run();
