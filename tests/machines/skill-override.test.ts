import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createActor } from 'xstate';
import { skillOverrideMachine, type SkillOverrideEvent } from '../../machines/skill-override.js';

function run(events: SkillOverrideEvent[]) {
  const actor = createActor(skillOverrideMachine).start();
  for (const e of events) actor.send(e);
  const { value, context } = actor.getSnapshot();
  return { state: value, armed: context.armed, applies: context.applies };
}

const cases: {
  name: string;
  events: SkillOverrideEvent[];
  state: string;
  armed: string | null;
  applies: string | null;
}[] = [
  { name: 'a new session has no override', events: [], state: 'none', armed: null, applies: null },
  {
    name: 'none: an ordinary message gets no skill',
    events: [{ type: 'MESSAGE' }],
    state: 'none',
    armed: null,
    applies: null,
  },
  {
    name: 'none: /use <skill> alone arms it',
    events: [{ type: 'USE', skill: 'weather' }],
    state: 'armed',
    armed: 'weather',
    applies: null,
  },
  {
    name: 'none: /use <skill> <message> forces it for that request and stays none',
    events: [{ type: 'USE', skill: 'weather', message: 'Paris?' }],
    state: 'none',
    armed: null,
    applies: 'weather',
  },
  {
    name: 'none: /use <skill> with a blank message arms like /use <skill> alone',
    events: [{ type: 'USE', skill: 'weather', message: '  ' }],
    state: 'armed',
    armed: 'weather',
    applies: null,
  },
  {
    name: 'none: the one-shot skill does not reach the following message',
    events: [{ type: 'USE', skill: 'weather', message: 'Paris?' }, { type: 'MESSAGE' }],
    state: 'none',
    armed: null,
    applies: null,
  },
  {
    name: 'none: /use clear changes nothing',
    events: [{ type: 'USE_CLEAR' }],
    state: 'none',
    armed: null,
    applies: null,
  },
  {
    name: 'none: /clear changes nothing',
    events: [{ type: 'SESSION_CLEARED' }],
    state: 'none',
    armed: null,
    applies: null,
  },
  {
    name: 'armed: the next message gets the skill and the override is used up',
    events: [{ type: 'USE', skill: 'weather' }, { type: 'MESSAGE' }],
    state: 'none',
    armed: null,
    applies: 'weather',
  },
  {
    name: 'armed: only the next message gets the skill',
    events: [{ type: 'USE', skill: 'weather' }, { type: 'MESSAGE' }, { type: 'MESSAGE' }],
    state: 'none',
    armed: null,
    applies: null,
  },
  {
    name: 'armed: /use clear disarms',
    events: [{ type: 'USE', skill: 'weather' }, { type: 'USE_CLEAR' }, { type: 'MESSAGE' }],
    state: 'none',
    armed: null,
    applies: null,
  },
  {
    name: 'armed: /clear disarms',
    events: [{ type: 'USE', skill: 'weather' }, { type: 'SESSION_CLEARED' }],
    state: 'none',
    armed: null,
    applies: null,
  },
  {
    name: 'armed: /use <other> alone re-arms with the other skill',
    events: [{ type: 'USE', skill: 'weather' }, { type: 'USE', skill: 'github' }, { type: 'MESSAGE' }],
    state: 'none',
    armed: null,
    applies: 'github',
  },
  {
    name: 'armed: a one-shot /use <other> <message> applies to that request and keeps the armed skill',
    events: [
      { type: 'USE', skill: 'weather' },
      { type: 'USE', skill: 'github', message: 'list my PRs' },
    ],
    state: 'armed',
    armed: 'weather',
    applies: 'github',
  },
  {
    name: 'armed: after a one-shot, the armed skill still applies to the next ordinary message',
    events: [
      { type: 'USE', skill: 'weather' },
      { type: 'USE', skill: 'github', message: 'list my PRs' },
      { type: 'MESSAGE' },
    ],
    state: 'none',
    armed: null,
    applies: 'weather',
  },
];

for (const c of cases) {
  test(c.name, () => {
    assert.equal(run(c.events), { state: c.state, armed: c.armed, applies: c.applies });
  });
}

test.run();
