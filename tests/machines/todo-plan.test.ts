import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createActor } from 'xstate';
import { todoPlanMachine, type TodoPlanEvent } from '../../machines/todo-plan.js';

const item = (id: string, extra: Record<string, unknown> = {}) => ({ id, content: `do ${id}`, ...extra });
const stored = (id: string, status = 'pending', priority = 'medium') => ({ id, content: `do ${id}`, status, priority });

function start(...events: TodoPlanEvent[]) {
  const actor = createActor(todoPlanMachine).start();
  for (const e of events) actor.send(e);
  return { actor, send: (e: TodoPlanEvent) => actor.send(e), snap: () => actor.getSnapshot() };
}

test('a new plan is empty and a read says so', () => {
  const { send, snap } = start();
  send({ type: 'READ' });
  assert.is(snap().value, 'empty');
  assert.equal(snap().context.outcome, { ok: true, todos: [], message: 'No plan yet.' });
});

test('empty: a read after a read gives the same outcome and leaves the snapshot as it was', () => {
  const { send, snap } = start({ type: 'READ' });
  const before = snap();
  send({ type: 'READ' });
  assert.is(snap(), before);
  assert.equal(snap().context.outcome, { ok: true, todos: [], message: 'No plan yet.' });
});

test('empty: a read after a refused write reports no plan again', () => {
  const { send, snap } = start({ type: 'READ' }, { type: 'WRITE', todos: 'nope' });
  assert.is(snap().context.outcome.ok, false);
  send({ type: 'READ' });
  assert.equal(snap().context.outcome, { ok: true, todos: [], message: 'No plan yet.' });
});

test('empty: a valid nonempty write stores the plan with defaults applied', () => {
  const { send, snap } = start();
  send({ type: 'WRITE', todos: [item('a'), item('b', { status: 'completed', priority: 'high' })] });
  assert.is(snap().value, 'stored');
  assert.equal(snap().context.todos, [stored('a'), stored('b', 'completed', 'high')]);
  assert.equal(snap().context.outcome, {
    ok: true,
    todos: [stored('a'), stored('b', 'completed', 'high')],
    message: 'Plan saved: 2 items (1 pending, 1 completed).',
  });
});

test('empty: writing [] keeps it empty and takes no slot', () => {
  const { send, snap } = start();
  send({ type: 'WRITE', todos: [], slots_full: true });
  assert.is(snap().value, 'empty');
  assert.equal(snap().context.outcome, { ok: true, todos: [], message: 'Plan cleared.' });
});

test('empty: a valid nonempty write when every slot is taken fails explicitly and stays empty', () => {
  const { send, snap } = start();
  send({ type: 'WRITE', todos: [item('a')], slots_full: true });
  assert.is(snap().value, 'empty');
  assert.equal(snap().context.outcome, {
    ok: false,
    error:
      'todo write refused: 256 session plans are already stored and none ' +
      'is evicted. Write [] to a finished plan or /clear its session first.',
  });
});

test('empty: an invalid write stays empty with the reason', () => {
  const { send, snap } = start();
  send({ type: 'WRITE', todos: [item(' ')] });
  assert.is(snap().value, 'empty');
  assert.equal(snap().context.outcome, {
    ok: false,
    error: 'todo write refused, the previous plan is kept: todos[0].id: must not be blank',
  });
});

test('empty: CLEAR stays empty', () => {
  const { send, snap } = start();
  send({ type: 'CLEAR' });
  assert.is(snap().value, 'empty');
});

test('empty: RELEASE ends the machine', () => {
  const { send, snap } = start();
  send({ type: 'RELEASE' });
  assert.is(snap().value, 'released');
  assert.is(snap().status, 'done');
});

test('stored: a read returns the plan and a summary', () => {
  const { send, snap } = start({ type: 'WRITE', todos: [item('a', { status: 'in_progress' })] });
  send({ type: 'READ' });
  assert.is(snap().value, 'stored');
  assert.equal(snap().context.outcome, {
    ok: true,
    todos: [stored('a', 'in_progress')],
    message: 'Current plan: 1 item (1 in_progress).',
  });
});

test('stored: a valid write replaces the whole plan, even when every slot is taken', () => {
  const { send, snap } = start({ type: 'WRITE', todos: [item('a'), item('b')] });
  send({ type: 'WRITE', todos: [item('c', { priority: 'low' })], slots_full: true });
  assert.is(snap().value, 'stored');
  assert.equal(snap().context.todos, [stored('c', 'pending', 'low')]);
});

test('stored: writing [] empties the plan and frees the slot', () => {
  const { send, snap } = start({ type: 'WRITE', todos: [item('a')] });
  send({ type: 'WRITE', todos: [] });
  assert.is(snap().value, 'empty');
  assert.equal(snap().context.outcome, { ok: true, todos: [], message: 'Plan cleared.' });
});

test('stored: /clear discards the plan', () => {
  const { send, snap } = start({ type: 'WRITE', todos: [item('a')] });
  send({ type: 'CLEAR' });
  assert.is(snap().value, 'empty');
  assert.equal(snap().context.todos, []);
  send({ type: 'READ' });
  assert.equal(snap().context.outcome, { ok: true, todos: [], message: 'No plan yet.' });
});

test('stored: RELEASE discards the plan and ends the machine', () => {
  const { send, snap } = start({ type: 'WRITE', todos: [item('a')] });
  send({ type: 'RELEASE' });
  assert.is(snap().value, 'released');
  assert.equal(snap().context.todos, []);
});

const tooMany = Array.from({ length: 101 }, (_, i) => item(`t${i}`));
const invalidWrites: [string, unknown, string][] = [
  ['missing todos', undefined, 'todos is required for write (missing or null); send [] to clear the plan'],
  ['null todos', null, 'todos is required for write (missing or null); send [] to clear the plan'],
  ['todos not a list', 'a, b', 'todos: must be an array of plan items'],
  ['an item that is not an object', ['buy milk'], 'todos[0]: must be an object with id and content'],
  ['missing id and content', [{}], 'todos[0].id: is required; todos[0].content: is required'],
  ['blank id', [item('  ')], 'todos[0].id: must not be blank'],
  ['id not a string', [{ id: 7, content: 'x' }], 'todos[0].id: must be a string'],
  [
    'duplicate id',
    [item('a'), item('b'), item('a')],
    'todos[2].id: "a" is already the id of another item; ids must be unique',
  ],
  ['id over 128 UTF-8 bytes', [item('é'.repeat(65))], 'todos[0].id: must be at most 128 UTF-8 bytes'],
  ['blank content', [{ id: 'a', content: '\n\t ' }], 'todos[0].content: must not be blank'],
  [
    'content over 1024 UTF-8 bytes',
    [{ id: 'a', content: '€'.repeat(342) }],
    'todos[0].content: must be at most 1024 UTF-8 bytes',
  ],
  [
    'bad status',
    [item('a', { status: 'done' })],
    'todos[0].status: must be one of pending, in_progress, completed, canceled (got "done")',
  ],
  [
    'bad priority',
    [item('a'), item('b', { priority: 'urgent' })],
    'todos[1].priority: must be one of low, medium, high (got "urgent")',
  ],
  ['more than 100 items', tooMany, 'todos: must hold at most 100 items'],
];

test('stored: every invalid write keeps the previous plan and names the field', () => {
  for (const [name, todos, problem] of invalidWrites) {
    const { send, snap } = start({ type: 'WRITE', todos: [item('keep')] });
    send({ type: 'WRITE', todos });
    assert.is(snap().value, 'stored', name);
    assert.equal(snap().context.todos, [stored('keep')], name);
    assert.equal(
      snap().context.outcome,
      { ok: false, error: `todo write refused, the previous plan is kept: ${problem}` },
      name,
    );
  }
});

test('limits are inclusive: 128-byte id, 1024-byte content and 100 items are accepted', () => {
  const todos = Array.from({ length: 100 }, (_, i) => ({ id: `${i}`.padEnd(128, 'x'), content: 'é'.repeat(512) }));
  const { snap } = start({ type: 'WRITE', todos });
  assert.is(snap().value, 'stored');
  assert.is(snap().context.todos.length, 100);
});

test.run();
