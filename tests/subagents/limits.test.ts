import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Envelope } from '../../bus/index.js';
import { eventually } from '../support/eventually.js';
import type { ModelRequest } from '../support/rule-model.js';
import { startSubagentFixture } from '../support/subagent-fixture.js';

const depthOf = (r: ModelRequest): number => (r.user.match(/You are a subagent/g) ?? []).length;
const completedTools = (events: Envelope[]) =>
  events.filter((e): e is Envelope<'tool.completed'> => e.type === 'tool.completed');
const ended = (events: Envelope[]) =>
  events.filter((e): e is Envelope<'subagent.ended'> => e.type === 'subagent.ended');

const test = suite('subagent limits');

test(
  'depth: a turn at max_depth is offered no tool to nest deeper, ' + 'and one that calls it anyway is refused',
  async () => {
    // Each level asks for one more level; the task text carries the level's framing, so the depth is countable.
    const f = await startSubagentFixture(
      (r) => {
        if (r.last === 'tool') return { text: `level ${depthOf(r)} got: ${r.toolResult}` };
        return { calls: [{ name: 'subagent', arguments: { task: `go deeper from ${r.user}` } }] };
      },
      { agents: { defaults: { model: 'fast', subagents: { max_depth: 2 } } } },
    );
    try {
      const reply = await f.say('start');
      assert.is(reply.kind === 'turn' && reply.outcome, 'completed');
      const offered = f.model.requests
        .filter((r) => r.last === 'user')
        .map((r) => [depthOf(r), r.tools.filter((t) => /^(spawn|subagent)$/.test(t)).sort()]);
      assert.equal(offered, [
        [0, ['spawn', 'subagent']],
        [1, ['spawn', 'subagent']],
        [2, []],
      ]);
      const refused = completedTools(f.events).filter((e) => !e.data.ok);
      assert.equal(
        refused.map((e) => e.data.content),
        ['tool "subagent" is not available in this turn'],
      );
      assert.equal(
        f.events
          .filter((e): e is Envelope<'subagent.spawned'> => e.type === 'subagent.spawned')
          .map((e) => e.data.depth),
        [1, 2],
      );
    } finally {
      await f.close();
    }
  },
);

test(
  'concurrency: with every slot of the session busy a task waits concurrency_timeout_sec, ' + 'then fails saying so',
  async () => {
    const f = await startSubagentFixture(
      (r) => {
        if (r.user.startsWith('You are a subagent')) return 'hang';
        if (r.last === 'tool') return { text: r.toolResult };
        return { calls: [{ name: 'spawn', arguments: { task: r.user } }] };
      },
      { agents: { defaults: { model: 'fast', subagents: { max_concurrent: 1, concurrency_timeout_sec: 1 } } } },
    );
    try {
      await f.say('first job');
      await f.model.request((r) => r.user.startsWith('You are a subagent'));
      const second = await f.say('second job');
      assert.match(second.kind === 'turn' ? second.text : '', /It waits for a free slot first\./);
      const started = Date.now();
      await eventually(() => ended(f.events).length, 1, 5000);
      assert.ok(Date.now() - started >= 800, 'the second task waited for its slot');
      assert.equal(
        ended(f.events)[0]!.data.reason,
        'no free subagent slot in this session within 1 s; try again when a running task has ended',
      );
      assert.equal(ended(f.events)[0]!.data.status, 'failed');
      assert.match(
        f.sent.at(-1)?.text ?? '',
        /^Subagent task sa_[0-9a-z]+ failed: no free subagent slot in this session within 1 s/,
      );
      // Another conversation has its own slots.
      await f.say('third job', { chat: 'elsewhere' });
      await eventually(() => f.model.requests.filter((r) => r.user.startsWith('You are a subagent')).length, 2);
    } finally {
      await f.close();
    }
  },
);

test('a finished task gives its slot to the oldest waiting one', async () => {
  let release: (() => void) | undefined;
  const firstMayEnd = new Promise<void>((resolve) => (release = resolve));
  const f = await startSubagentFixture(
    (r) => {
      if (r.user.startsWith('You are a subagent'))
        return r.user.includes('first') ? { text: 'first done', wait: firstMayEnd } : { text: 'second done' };
      if (r.last === 'tool') return { text: r.toolResult };
      return { calls: [{ name: 'spawn', arguments: { task: r.user } }] };
    },
    { agents: { defaults: { model: 'fast', subagents: { max_concurrent: 1 } } } },
  );
  try {
    await f.say('first job');
    await f.say('second job');
    await f.model.request((r) => r.user.includes('Task: first job'));
    assert.is(f.model.requests.filter((r) => r.user.includes('Task: second job')).length, 0);
    release!();
    await eventually(() => ended(f.events).map((e) => e.data.status), ['completed', 'completed']);
  } finally {
    await f.close();
  }
});

test.run();
