import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createActor } from 'xstate';
import { agentMachine, type AgentEvent } from '../../machines/agent.js';

function run(events: AgentEvent[]) {
  const actor = createActor(agentMachine).start();
  for (const e of events) actor.send(e);
  const { value, context, status } = actor.getSnapshot();
  actor.stop();
  return { state: value, sessions: context.sessions, status };
}

const cases: { name: string; events: AgentEvent[]; state: string; sessions: number; status: string }[] = [
  { name: 'a new agent is serving with no sessions', events: [], state: 'serving', sessions: 0, status: 'active' },
  { name: 'serving: each new session is counted', events: [{ type: 'SESSION_OPENED' }, { type: 'SESSION_OPENED' }], state: 'serving', sessions: 2, status: 'active' },
  { name: 'serving: STOP begins stopping', events: [{ type: 'SESSION_OPENED' }, { type: 'STOP' }], state: 'stopping', sessions: 1, status: 'active' },
  { name: 'serving: STOPPED before STOP changes nothing', events: [{ type: 'STOPPED' }], state: 'serving', sessions: 0, status: 'active' },
  { name: 'stopping: no new session is counted', events: [{ type: 'STOP' }, { type: 'SESSION_OPENED' }], state: 'stopping', sessions: 0, status: 'active' },
  { name: 'stopping: STOPPED ends the agent', events: [{ type: 'STOP' }, { type: 'STOPPED' }], state: 'stopped', sessions: 0, status: 'done' },
];

for (const c of cases) {
  test(`agent machine — ${c.name}`, () => {
    assert.equal(run(c.events), { state: c.state, sessions: c.sessions, status: c.status });
  });
}

test.run();
