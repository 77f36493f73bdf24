import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as z from 'zod';
import { InProcessBus } from '../../bus/bus.js';
import type { ToolContext } from '../../adapters/tools/tool.js';
import { TodoTool } from '../../actors/todo-tool.js';

const context = (agent: string, session: string, turn?: string): ToolContext => ({
  agent,
  session,
  sessionKey: `v=1|agent=${agent}|channel=cli|account=default|chat=${session}`,
  ...(turn ? { turn } : {}),
  channel: 'cli',
  chat: 'direct',
  remote: false,
  workspace: '/nonexistent-workspace',
  signal: new AbortController().signal,
});
const main = context('main', 'sk_v1_aaa');

/** Parses the arguments at the edge, as the tool registry does, then runs the tool. */
async function call(tool: TodoTool, args: unknown, ctx: ToolContext = main) {
  return tool.execute(tool.parameters.parse(args), ctx);
}
const write = (tool: TodoTool, todos: unknown, ctx?: ToolContext) => call(tool, { action: 'write', todos }, ctx);
const read = (tool: TodoTool, ctx?: ToolContext) => call(tool, { action: 'read' }, ctx);
const plan = (ids: string[]) => ids.map((id) => ({ id, content: `do ${id}` }));
const full = (id: string, status = 'pending', priority = 'medium') => ({ id, content: `do ${id}`, status, priority });

test('write returns the stored plan as JSON and read returns the same plan', async () => {
  const tool = new TodoTool();
  const written = await write(tool, [
    { id: 'a', content: 'do a' },
    { id: 'b', content: 'do b', status: 'in_progress', priority: 'high' },
  ]);
  assert.equal(written, {
    ok: true,
    content: JSON.stringify({
      todos: [full('a'), full('b', 'in_progress', 'high')],
      total_count: 2,
      message: 'Plan saved: 2 items (1 pending, 1 in_progress).',
    }),
  });
  assert.equal(await read(tool), {
    ok: true,
    content: JSON.stringify({
      todos: [full('a'), full('b', 'in_progress', 'high')],
      total_count: 2,
      message: 'Current plan: 2 items (1 pending, 1 in_progress).',
    }),
  });
});

test('read with no plan returns an empty list', async () => {
  assert.equal(await read(new TodoTool()), {
    ok: true,
    content: '{"todos":[],"total_count":0,"message":"No plan yet."}',
  });
});

test('plans are per agent and per session, chosen only from the context', async () => {
  const tool = new TodoTool();
  await write(tool, plan(['a']));
  const others = [context('main', 'sk_v1_bbb'), context('helper', 'sk_v1_aaa')];
  for (const ctx of others)
    assert.equal(await read(tool, ctx), { ok: true, content: '{"todos":[],"total_count":0,"message":"No plan yet."}' });
  assert.is(JSON.parse((await read(tool)).content).total_count, 1);
});

test('arguments that try to name a session or agent are rejected at the edge', () => {
  const tool = new TodoTool();
  for (const extra of [{ session: 'sk_v1_bbb' }, { agent: 'helper' }, { session_key: 'x' }]) {
    const parsed = tool.parameters.safeParse({ action: 'read', ...extra });
    assert.is(parsed.success, false, JSON.stringify(extra));
    assert.equal(
      parsed.error?.issues.map((i) => i.code),
      ['unrecognized_keys'],
    );
  }
});

test('an action other than read or write is rejected at the edge', () => {
  const parsed = new TodoTool().parameters.safeParse({ action: 'delete' });
  assert.is(parsed.success, false);
  assert.equal(
    parsed.error?.issues.map((i) => i.path),
    [['action']],
  );
});

test('a call without the trusted agent or session fails', async () => {
  const tool = new TodoTool();
  for (const ctx of [context('', 'sk_v1_aaa'), context('main', '')]) {
    assert.equal(await write(tool, plan(['a']), ctx), {
      ok: false,
      content: 'todo failed: it needs the trusted agent and session of a running turn, and this call had none.',
    });
  }
  assert.is(tool.storedPlans, 0);
});

test('an invalid write fails with the reason and the previous plan is kept', async () => {
  const tool = new TodoTool();
  await write(tool, plan(['a']));
  const cases: [unknown, string][] = [
    [undefined, 'todos is required for write (missing or null); send [] to clear the plan'],
    [null, 'todos is required for write (missing or null); send [] to clear the plan'],
    [plan(['b', 'b']), 'todos[1].id: "b" is already the id of another item; ids must be unique'],
    [
      [{ id: 'c', content: 'x', status: 'done' }],
      'todos[0].status: must be one of pending, in_progress, completed, canceled (got "done")',
    ],
  ];
  for (const [todos, problem] of cases) {
    assert.equal(await write(tool, todos), {
      ok: false,
      content: `todo write refused, the previous plan is kept: ${problem}`,
    });
  }
  assert.equal(JSON.parse((await read(tool)).content).todos, [full('a')]);
});

test('writing [] clears the plan and frees its slot', async () => {
  const tool = new TodoTool();
  await write(tool, plan(['a']));
  assert.is(tool.storedPlans, 1);
  assert.equal(await write(tool, []), { ok: true, content: '{"todos":[],"total_count":0,"message":"Plan cleared."}' });
  assert.is(tool.storedPlans, 0);
});

test('a read of an empty plan takes no slot', async () => {
  const tool = new TodoTool();
  await read(tool);
  assert.is(tool.storedPlans, 0);
});

test('/clear discards the session plan and leaves other sessions alone', async () => {
  const tool = new TodoTool();
  const other = context('main', 'sk_v1_bbb');
  await write(tool, plan(['a']));
  await write(tool, plan(['b']), other);
  tool.clear('main', 'sk_v1_aaa');
  assert.is(JSON.parse((await read(tool)).content).total_count, 0);
  assert.is(JSON.parse((await read(tool, other)).content).total_count, 1);
  assert.is(tool.storedPlans, 1);
});

test('release frees the plan of an ended subagent', async () => {
  const tool = new TodoTool();
  await write(tool, plan(['a']));
  tool.release('main', 'sk_v1_aaa');
  assert.is(tool.storedPlans, 0);
  assert.is(JSON.parse((await read(tool)).content).total_count, 0);
});

test(
  'at 256 nonempty plans a new plan fails explicitly, ' + 'nothing is evicted, and a freed slot can be reused',
  async () => {
    const tool = new TodoTool();
    for (let i = 0; i < 256; i++) assert.is((await write(tool, plan(['a']), context('main', `s${i}`))).ok, true);
    const newcomer = context('main', 's256');
    assert.equal(await write(tool, plan(['a']), newcomer), {
      ok: false,
      content:
        'todo write refused: 256 session plans are already stored and none is evicted. ' +
        'Write [] to a finished plan or /clear its session first.',
    });
    assert.is(tool.storedPlans, 256);
    assert.is(JSON.parse((await read(tool, context('main', 's0'))).content).total_count, 1);
    assert.is(
      (await write(tool, plan(['a', 'b']), context('main', 's7'))).ok,
      true,
      'an existing plan can still be rewritten',
    );
    assert.is((await write(tool, [], newcomer)).ok, true, 'an empty write needs no slot');
    await write(tool, [], context('main', 's3'));
    assert.is((await write(tool, plan(['a']), newcomer)).ok, true);
    assert.is(tool.storedPlans, 256);
  },
);

test('plans live in memory only: a new tool instance (restart) starts with none', async () => {
  await write(new TodoTool(), plan(['a']));
  assert.equal(JSON.parse((await read(new TodoTool())).content).todos, []);
});

test(
  'each successful write publishes todo.written with the session and turn; ' + 'reads and refusals publish nothing',
  async () => {
    const bus = new InProcessBus();
    const seen: unknown[] = [];
    const subscription = bus
      .on('todo.written')
      .subscribe((e) => seen.push({ agent: e.agent, session: e.session, turn: e.turn, data: e.data }));
    const tool = new TodoTool((draft) => bus.publish(draft));
    const ctx = context('main', 'sk_v1_aaa', 'turn-1');
    await write(tool, plan(['a']), ctx);
    await read(tool, ctx);
    await write(tool, null, ctx);
    await write(tool, [], ctx);
    subscription.unsubscribe();
    assert.equal(seen, [
      { agent: 'main', session: 'sk_v1_aaa', turn: 'turn-1', data: { todos: [full('a')] } },
      { agent: 'main', session: 'sk_v1_aaa', turn: 'turn-1', data: { todos: [] } },
    ]);
  },
);

test('the model sees the plan item rules in the JSON schema of the parameters', () => {
  const schema = z.toJSONSchema(new TodoTool().parameters, { io: 'input' });
  assert.equal(schema.required, ['action']);
  assert.is(schema.additionalProperties, false);
  assert.equal(schema.properties?.todos, {
    type: 'array',
    maxItems: 100,
    items: {
      type: 'object',
      properties: {
        id: { type: 'string', description: 'Unique in the plan, nonblank, at most 128 UTF-8 bytes' },
        content: { type: 'string', description: 'What to do, nonblank, at most 1024 UTF-8 bytes' },
        status: { default: 'pending', type: 'string', enum: ['pending', 'in_progress', 'completed', 'canceled'] },
        priority: { default: 'medium', type: 'string', enum: ['low', 'medium', 'high'] },
      },
      required: ['id', 'content'],
    },
    description: 'For write: the complete replacement list (required; [] clears the plan). Ignored for read.',
  });
});

test.run();
