import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Envelope } from '../../bus/index.js';
import { REMOTE_EXEC_MESSAGE } from '../../adapters/tools/exec/exec-guard.js';
import { eventually } from '../support/eventually.js';
import type { ModelRequest, ModelAnswer } from '../support/rule-model.js';
import { startSubagentFixture } from '../support/subagent-fixture.js';

const isChild = (r: ModelRequest): boolean => r.user.startsWith('You are a subagent');
const results = (events: Envelope[], session?: string) =>
  events
    .filter(
      (e): e is Envelope<'tool.completed'> =>
        e.type === 'tool.completed' && (session === undefined || e.session === session),
    )
    .map((e) => ({ name: e.data.name, ok: e.data.ok, content: e.data.content }));

/** The parent delegates `call` to a child (spawn or subagent) and the child makes it. */
function delegating(
  tool: 'spawn' | 'subagent',
  call: { name: string; arguments: Record<string, unknown> },
): (r: ModelRequest) => ModelAnswer {
  return (r) => {
    if (r.last === 'tool') return { text: `done: ${r.toolResult}` };
    if (isChild(r)) return { calls: [call] };
    if (r.user.startsWith('myself')) return { calls: [call] };
    return { calls: [{ name: tool, arguments: { task: 'do it' } }] };
  };
}

const test = suite('what a subagent inherits');

test('a child reads inside the workspace only, like its parent (restrict_to_workspace)', async () => {
  const f = await startSubagentFixture(
    delegating('subagent', { name: 'read_file', arguments: { path: '../outside.txt' } }),
    { files: { 'outside.txt': 'secret plans', 'workspace/inside.txt': 'hello' } },
  );
  try {
    const reply = await f.say('read it');
    // The child read nothing and said so; its answer is the parent's tool result.
    assert.is(
      reply.kind === 'turn' && reply.text,
      'done: done: access denied: ../outside.txt is outside the workspace',
    );
    const child = f.events.find(
      (e): e is Envelope<'tool.completed'> => e.type === 'tool.completed' && e.data.name === 'read_file',
    )!;
    assert.equal(
      { ok: child.data.ok, content: child.data.content },
      { ok: false, content: 'access denied: ../outside.txt is outside the workspace' },
    );
    assert.ok(child.task, "the refused read was the child's");
    assert.not.match(JSON.stringify(f.model.requests), /secret plans/);
  } finally {
    await f.close();
  }
});

test("a remote chat's child cannot exec, as its parent could not; a local chat's child can", async () => {
  const f = await startSubagentFixture(
    delegating('spawn', { name: 'exec', arguments: { command: 'echo from-child' } }),
  );
  try {
    await f.say('myself', { channel: 'telegram', chat: 'r1' });
    assert.equal(results(f.events).at(-1), { name: 'exec', ok: false, content: REMOTE_EXEC_MESSAGE });
    await f.say('delegate', { channel: 'telegram', chat: 'r1' });
    await eventually(() => f.events.filter((e) => e.type === 'subagent.ended').length, 1);
    const childExec = f.events.find(
      (e): e is Envelope<'tool.completed'> =>
        e.type === 'tool.completed' && e.data.name === 'exec' && e.task !== undefined,
    )!;
    assert.equal(
      { ok: childExec.data.ok, content: childExec.data.content },
      { ok: false, content: REMOTE_EXEC_MESSAGE },
    );
    // The child's turn names the parent's channel and chat: its message tool reaches that chat.
    const started = f.events.find(
      (e): e is Envelope<'turn.started'> => e.type === 'turn.started' && e.task !== undefined,
    )!;
    assert.equal(
      { channel: started.data.channel, chat: started.data.chat },
      { channel: 'telegram', chat: 'direct:r1' },
    );
    await f.say('delegate', { chat: 'local' });
    await eventually(() => f.events.filter((e) => e.type === 'subagent.ended').length, 2);
    const localExec = f.events
      .filter(
        (e): e is Envelope<'tool.completed'> =>
          e.type === 'tool.completed' && e.data.name === 'exec' && e.task !== undefined,
      )
      .at(-1)!;
    assert.equal(
      { ok: localExec.data.ok, content: localExec.data.content.trim() },
      { ok: true, content: 'from-child' },
    );
  } finally {
    await f.close();
  }
});

test.run();
