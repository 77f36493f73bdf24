import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createActor, fromPromise, waitFor } from 'xstate';
import { BoardInspector } from '../../actors/board.js';
import type { Envelope } from '../../bus/index.js';
import { agentBoard, agentMachine } from '../../machines/agent.js';
import { given, movesOf, type Stage } from '../support/actor-kit.js';

/** The agent machine as its actor; its host's effects (opening sessions, handing them work) are recorded in order. */
function agent(stage: Stage) {
  const open = new Set<string>();
  const effects: string[] = [];
  const machine = agentMachine.provide({
    actors: {
      stopSessions: fromPromise<void, { reason: string }>(
        async ({ input }) => void effects.push(`stop all: ${input.reason}`),
      ),
    },
    actions: {
      openSession: (_, m) => {
        open.add(m.session!);
        effects.push(`open ${m.session}`);
      },
      deliver: (_, m) => void effects.push(`deliver ${m.data.text} to ${m.session}`),
      stopTurn: (_, r) => void effects.push(`stop turn of ${r.session}`),
      drainSessions: () => void effects.push('drain'),
      abortTurn: (_, r) => void effects.push(`abort turn of ${r.session}: ${r.data.reason}`),
      release: (_, r) => void effects.push(`release ${r.session}: ${r.data.reason}`),
    },
    guards: { isOpen: (_, m) => open.has(m.session!) },
  });
  const actor = createActor(machine, {
    input: { agent: 'main' },
    inspect: new BoardInspector(stage.bus, { agent: agentBoard }).inspect,
  }).start();
  return { actor, effects };
}

let n = 0;
const routed = (stage: Stage, session: string, text: string): Envelope<'message.routed'> =>
  stage.when({
    agent: 'main',
    session,
    type: 'message.routed',
    data: {
      message_id: `m${++n}`,
      channel: 'cli',
      account: 'default',
      chat: 'direct:me',
      sender: 'me',
      text,
      session_key: session,
      remote: false,
      media: [],
    },
  });

test(
  'when messages come for two sessions, ' +
    'then each session opens on its first message and gets every message, counted on the board',
  () => {
    const stage = given();
    const { actor, effects } = agent(stage);
    for (const [session, text] of [
      ['a', 'one'],
      ['b', 'two'],
      ['a', 'three'],
    ] as const)
      actor.send({ type: 'MESSAGE', message: routed(stage, session, text) });
    assert.equal(effects, ['open a', 'deliver one to a', 'open b', 'deliver two to b', 'deliver three to a']);
    assert.equal(movesOf(stage.published, 'agent:main'), [
      '->serving xstate.init',
      'serving->serving MESSAGE',
      'serving->serving MESSAGE',
    ]);
    assert.equal(
      stage.published
        .filter((e) => e.type === 'actor.transitioned')
        .map((e) => e.type === 'actor.transitioned' && e.data.context),
      [{ sessions: 0 }, { sessions: 1 }, { sessions: 2 }],
    );
  },
);

test('when /stop comes, then it is passed to the session at once, also while draining', () => {
  const stage = given();
  const { actor, effects } = agent(stage);
  const request = stage.when({ agent: 'main', session: 'a', type: 'turn.stop.requested', data: { message_id: 's1' } });
  actor.send({ type: 'STOP_TURN', request });
  actor.send({ type: 'DRAIN' });
  actor.send({ type: 'STOP_TURN', request });
  assert.equal(effects, ['stop turn of a', 'drain', 'stop turn of a']);
});

test(
  'when a subagent task is canceled and then ends, ' +
    "then its session's turn is aborted and the session released, also while draining",
  () => {
    const stage = given();
    const { actor, effects } = agent(stage);
    const keys = { agent: 'main', session: 'child', parent: 't0', task: 'task_1' };
    actor.send({ type: 'DRAIN' });
    actor.send({
      type: 'ABORT_TURN',
      request: stage.when({ ...keys, type: 'turn.abort.requested', data: { reason: 'the parent was stopped' } }),
    });
    actor.send({
      type: 'RELEASE',
      request: stage.when({ ...keys, type: 'session.release.requested', data: { reason: 'the subagent task ended' } }),
    });
    assert.equal(effects, [
      'drain',
      'abort turn of child: the parent was stopped',
      'release child: the subagent task ended',
    ]);
  },
);

test('when draining, then new work is not handed to sessions (it waits in the log for the next start)', () => {
  const stage = given();
  const { actor, effects } = agent(stage);
  actor.send({ type: 'DRAIN' });
  actor.send({ type: 'MESSAGE', message: routed(stage, 'a', 'late') });
  assert.equal(effects, ['drain']);
  assert.is(actor.getSnapshot().value, 'draining');
});

test('when stopped, then every session is ended and the agent leaves the board with the reason', async () => {
  const stage = given();
  const { actor, effects } = agent(stage);
  actor.send({ type: 'STOP', reason: 'the process is shutting down' });
  await waitFor(actor, (s) => s.status === 'done');
  assert.equal(effects, ['stop all: the process is shutting down']);
  assert.equal(movesOf(stage.published, 'agent:main').slice(1), [
    'serving->stopping STOP',
    'stopping->stopped done.sessions',
  ]);
  assert.equal(stage.then('actor.stopped'), [
    ['actor.stopped', { actor: 'agent:main', machine: 'agent', reason: 'the process is shutting down' }],
  ]);
});

test.run();
