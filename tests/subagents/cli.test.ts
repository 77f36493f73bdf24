import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Envelope } from '../../bus/index.js';
import { runCli } from '../support/cli.js';
import { eventually } from '../support/eventually.js';
import type { ModelRequest } from '../support/rule-model.js';
import { startSubagentFixture, turnOf } from '../support/subagent-fixture.js';

const isChild = (r: ModelRequest): boolean => r.user.startsWith('You are a subagent');

/** The parent asks a synchronous subagent, which lists the workspace; "spawn" starts one that never ends. */
function model(r: ModelRequest) {
  if (isChild(r)) {
    if (r.user.includes('forever')) return 'hang' as const;
    return r.last === 'tool'
      ? { text: 'the workspace has AGENT.md' }
      : { calls: [{ name: 'list_dir', arguments: { path: '.' } }] };
  }
  if (r.last === 'tool') return { text: `helper: ${r.toolResult}` };
  if (r.user.startsWith('spawn'))
    return { calls: [{ name: 'spawn', arguments: { task: 'wait forever', label: 'waiter' } }] };
  return { calls: [{ name: 'subagent', arguments: { task: 'look around', label: 'scout' } }] };
}

const test = suite('subagents on the command line');

test(
  "replay nests the child's timeline under the parent's; " + "log --turn --children adds the child's events",
  async () => {
    const f = await startSubagentFixture(model);
    try {
      const parent = turnOf(await f.say('what is here?'));
      await f.runtime.close();
      const replay = runCli(['replay', parent], f.home.env);
      assert.is(replay.code, 0, replay.stderr);
      const lines = replay.stdout.trim().split('\n');
      const spawnedAt = lines.findIndex((l) =>
        / subagent\.spawned +subagent sa_[0-9a-z]+ \(agent main, "scout", depth 1\): look around$/.test(l),
      );
      assert.ok(spawnedAt > 0, replay.stdout);
      const nested = lines.slice(spawnedAt + 1).filter((l) => l.startsWith('    │ ') && !l.includes(' actor.'));
      assert.equal(
        nested.map((l) => / ms {2}(\S+)/.exec(l)?.[1]),
        [
          'turn.started',
          'prompt.built',
          'provider.requested',
          'provider.responded',
          'tool.requested',
          'tool.completed',
          'provider.requested',
          'provider.responded',
          'turn.completed',
          'reply.requested',
        ],
      );
      const ownEnd = lines.filter((l) => !l.startsWith('    │ ') && / turn\.completed /.test(l));
      assert.equal(ownEnd.length, 1);
      assert.match(ownEnd[0]!, /turn\.completed +reply: helper: the workspace has AGENT\.md$/);

      const json = JSON.parse(runCli(['replay', parent, '--json'], f.home.env).stdout) as {
        children: Array<{ task: string; mode: string; label: string; call: string; events: Envelope[] }>;
        events: Envelope[];
      };
      assert.is(json.children.length, 1);
      const child = json.children[0]!;
      const call = json.events.find((e): e is Envelope<'tool.requested'> => e.type === 'tool.requested')!.data.call_id;
      assert.equal(
        {
          mode: child.mode,
          label: child.label,
          call: child.call,
          turns: [...new Set(child.events.map((e) => e.turn))].length,
        },
        { mode: 'subagent', label: 'scout', call, turns: 1 },
      );

      const own = runCli(['log', '--turn', parent, '--json'], f.home.env)
        .stdout.trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Envelope);
      const all = runCli(['log', '--turn', parent, '--children', '--json'], f.home.env)
        .stdout.trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Envelope);
      assert.ok(own.every((e) => e.turn === parent));
      const added = all.filter((e) => e.turn !== parent);
      assert.ok(added.length > 0 && added.every((e) => e.task === child.task));
      assert.equal(
        all.map((e) => e.seq),
        [...all.map((e) => e.seq)].sort((a, b) => a - b),
      );
      assert.equal(runCli(['log', '--children'], f.home.env).code, 2);
    } finally {
      await f.close();
    }
  },
);

test('inspect shows a running subagent under the turn that started it, and its session under it', async () => {
  const f = await startSubagentFixture(model);
  try {
    const parent = turnOf(await f.say('spawn one'));
    await f.model.request((r) => isChild(r));
    await eventually(
      () =>
        f.events.some(
          (e) => e.type === 'actor.transitioned' && e.data.machine === 'subagent' && e.data.to === 'running',
        ),
      true,
    );
    await f.runtime.log.committed();
    const { code, stdout } = runCli(['inspect', '--json'], f.home.env);
    assert.is(code, 0);
    const actors = (
      JSON.parse(stdout) as { actors: Array<{ actor: string; machine: string; state: string; parent?: string }> }
    ).actors;
    const task = actors.find((a) => a.machine === 'subagent')!;
    assert.equal({ state: task.state, parent: task.parent }, { state: 'running', parent: `turn:${parent}` });
    assert.ok(actors.some((a) => a.machine === 'session' && a.parent === task.actor));
    const text = runCli(['inspect'], f.home.env).stdout;
    assert.match(text, new RegExp(`\\n {2,}${task.actor} +subagent +running `));
  } finally {
    await f.close();
  }
});

test.run();
