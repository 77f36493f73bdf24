import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createActor } from 'xstate';
import { sessionMachine, type SessionEvent } from '../../machines/session.js';

function run(events: SessionEvent[]) {
  const actor = createActor(sessionMachine).start();
  for (const e of events) actor.send(e);
  const { value, context } = actor.getSnapshot();
  actor.stop();
  return { state: value, queued: context.queued };
}

const received: SessionEvent = { type: 'RECEIVED' };
const finished: SessionEvent = { type: 'FINISHED' };

const cases: { name: string; events: SessionEvent[]; state: string; queued: number }[] = [
  { name: 'a new session is idle with nothing queued', events: [], state: 'idle', queued: 0 },
  { name: 'idle: a message starts running at once', events: [received], state: 'running', queued: 0 },
  { name: 'idle: a stray FINISHED changes nothing', events: [finished], state: 'idle', queued: 0 },
  { name: 'running: the end of the only message goes back to idle', events: [received, finished], state: 'idle', queued: 0 },
  { name: 'running: a second message waits and is counted', events: [received, received], state: 'running', queued: 1 },
  { name: 'running: every further message is counted', events: [received, received, received, received], state: 'running', queued: 3 },
  { name: 'running: the end of one starts the next waiting message', events: [received, received, received, finished], state: 'running', queued: 1 },
  { name: 'running: idle again only once the queue is empty', events: [received, received, finished, finished], state: 'idle', queued: 0 },
  { name: 'idle again: the next message runs at once', events: [received, finished, received], state: 'running', queued: 0 },
];

for (const c of cases) {
  test(`session machine — ${c.name}`, () => {
    assert.equal(run(c.events), { state: c.state, queued: c.queued });
  });
}

test.run();
