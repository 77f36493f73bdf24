import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { rerunTurn } from '../../actors/replay.js';
import type { TodoTool } from '../../actors/todo-tool.js';
import type { Envelope } from '../../bus/index.js';
import type { ModelRequest } from '../support/rule-model.js';
import { ofTask, startSubagentFixture, turnOf } from '../support/subagent-fixture.js';

const isChild = (r: ModelRequest): boolean => r.user.startsWith('You are a subagent');

const test = suite('subagent (synchronous)');

test(
  "the child answers and its final answer is the parent's tool result; " +
    "the child sees none of the parent's history",
  async () => {
    const f = await startSubagentFixture((r) => {
      if (isChild(r)) return { text: 'The capital of France is Paris.' };
      if (r.user.includes('PELICAN')) return { text: 'I will remember PELICAN.' };
      if (r.last === 'tool') return { text: `My helper says: ${r.toolResult}` };
      return { calls: [{ name: 'subagent', arguments: { task: 'What is the capital of France?', label: 'capital' } }] };
    });
    try {
      await f.say('Remember the word PELICAN.');
      const reply = await f.say('Ask a helper for the capital of France.');
      assert.equal(reply, {
        kind: 'turn',
        turn: turnOf(reply),
        outcome: 'completed',
        text: 'My helper says: The capital of France is Paris.',
      });
      const parent = turnOf(reply);
      const completed = f.events.find(
        (e): e is Envelope<'tool.completed'> => e.turn === parent && e.type === 'tool.completed',
      );
      assert.equal(completed?.data, {
        call_id: completed?.data.call_id ?? '',
        name: 'subagent',
        ok: true,
        content: 'The capital of France is Paris.',
      });
      const child = f.model.requests.filter(isChild);
      assert.is(child.length, 1);
      assert.equal(
        child[0]!.messages.map((m) => m.role),
        ['user'],
      );
      assert.match(child[0]!.user, /Task: What is the capital of France\?$/);
      assert.not.match(JSON.stringify(child[0]), /PELICAN/);
      const spawned = f.events.find((e): e is Envelope<'subagent.spawned'> => e.type === 'subagent.spawned')!;
      assert.is(spawned.turn, parent);
      assert.equal(
        { ...spawned.data, task_id: '', session_key: '' },
        {
          task_id: '',
          mode: 'subagent',
          agent_id: 'main',
          label: 'capital',
          task: 'What is the capital of France?',
          depth: 1,
          session_key: '',
        },
      );
      const task = spawned.data.task_id;
      const childEvents = ofTask(f.events, task).filter((e) => e.session !== spawned.session);
      assert.ok(childEvents.every((e) => e.parent === parent && e.task === task));
      assert.ok(childEvents.some((e) => e.type === 'turn.completed'));
      assert.match(spawned.data.session_key, new RegExp(`\\|channel=subagent\\|account=default\\|chat=${task}$`));
      const ended = f.events.find((e): e is Envelope<'subagent.ended'> => e.type === 'subagent.ended')!;
      assert.equal(
        { ...ended.data, turn: '' },
        { task_id: task, status: 'completed', result: 'The capital of France is Paris.', turn: '' },
      );
      assert.is(ended.turn, parent);
    } finally {
      await f.close();
    }
  },
);

test('replay: a parent turn with a synchronous child reruns identical', async () => {
  const f = await startSubagentFixture((r) => {
    if (isChild(r))
      return r.last === 'tool'
        ? { text: `child read: ${r.toolResult}` }
        : { calls: [{ name: 'list_dir', arguments: { path: '.' } }] };
    if (r.last === 'tool') return { text: `parent got: ${r.toolResult}` };
    return { calls: [{ name: 'subagent', arguments: { task: 'list the workspace' } }] };
  });
  try {
    const reply = await f.say('what is in the workspace?');
    await f.runtime.log.committed();
    const parent = f.runtime.log.read({ turn: turnOf(reply) });
    assert.ok(parent.some((e) => e.type === 'subagent.spawned') && parent.some((e) => e.type === 'subagent.ended'));
    assert.equal(await rerunTurn(parent), { identical: true, compared: 8 });
    const child = f.events.find(
      (e): e is Envelope<'turn.started'> => e.type === 'turn.started' && e.task !== undefined,
    )!;
    assert.equal(await rerunTurn(f.runtime.log.read({ turn: child.turn! })), { identical: true, compared: 8 });
  } finally {
    await f.close();
  }
});

test(
  'polling spawn_status is no loop: ' + 'five identical polls pass a repeat threshold of 3 without a warning',
  async () => {
    let polls = 0;
    const f = await startSubagentFixture(
      (r) => {
        if (r.user.startsWith('You are a subagent')) return { text: 'done' };
        return ++polls <= 5 ? { calls: [{ name: 'spawn_status', arguments: {} }] } : { text: 'polled' };
      },
      {
        agents: {
          defaults: {
            model: 'fast',
            loop_detection: { enabled: true, repeat_threshold: 3, critical_threshold: 4, window_size: 10 },
          },
        },
      },
    );
    try {
      assert.is((await f.say('poll five times')).kind === 'turn' && polls, 6);
      assert.equal(
        f.events.filter((e) => e.type === 'loop.warned' || e.type === 'turn.stopped'),
        [],
      );
    } finally {
      await f.close();
    }
  },
);

test("the child's todo plan is released when it ends", async () => {
  let plans = -1;
  const f = await startSubagentFixture((r) => {
    if (isChild(r)) {
      if (r.last === 'user')
        return { calls: [{ name: 'todo', arguments: { action: 'write', todos: [{ id: 'a', content: 'look' }] } }] };
      plans = todo().storedPlans;
      return { text: 'looked' };
    }
    return r.last === 'tool'
      ? { text: r.toolResult }
      : { calls: [{ name: 'subagent', arguments: { task: 'plan it' } }] };
  });
  const todo = () => f.runtime.tools.list().find((t) => t.name === 'todo') as TodoTool;
  try {
    assert.is((await f.say('go')).kind, 'turn');
    assert.is(plans, 1, 'the child held a plan while it ran');
    assert.is(todo().storedPlans, 0);
  } finally {
    await f.close();
  }
});

test.run();
