import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { assign } from 'xstate';
import { rerunTurn } from '../../actors/replay.js';
import type { Envelope } from '../../bus/index.js';
import { turnMachine, type BuiltPrompt } from '../../machines/turn.js';
import { turnTexts } from '../../machines/turn-texts.js';
import { completion, completionStreamText, sse } from '../support/vendor-chat-completions.js';
import { splitBytes } from '../support/vendor-server.js';
import { startTurnFixture, type TurnFixture } from '../support/turn-fixture.js';
import { withoutTime } from '../support/user-time.js';

const toolCall = (id: string, name: string, args: unknown) => ({
  id,
  type: 'function' as const,
  function: { name, arguments: JSON.stringify(args) },
});
const types = (events: Envelope[], turn: string) =>
  events.filter((e) => e.turn === turn && !e.type.startsWith('actor.')).map((e) => e.type);
const bodyOf = (f: TurnFixture, i: number) =>
  JSON.parse(f.vendor.requests[i]!.body.toString()) as {
    messages: Array<Record<string, unknown>>;
    tools?: unknown[];
    stream?: boolean;
  };
const turnOf = (reply: { kind: string; turn?: string }) => (reply as { turn: string }).turn;

const test = suite('turn engine');

test('a tool round trip: the model writes a todo, sees the result, and answers', async () => {
  const f = await startTurnFixture();
  try {
    f.vendor.reply(
      completion(
        { tool_calls: [toolCall('call_1', 'todo', { action: 'write', todos: [{ id: 'milk', content: 'buy milk' }] })] },
        'tool_calls',
      ),
      completion({ content: 'Added milk.' }),
    );
    const reply = await f.send('remind me to buy milk');
    assert.equal(
      { ...reply, turn: undefined },
      { kind: 'turn', turn: undefined, outcome: 'completed', text: 'Added milk.' },
    );
    const turn = turnOf(reply);
    assert.equal(types(f.events, turn), [
      'turn.started',
      'prompt.built',
      'provider.requested',
      'provider.responded',
      'tool.requested',
      'todo.written',
      'tool.completed',
      'provider.requested',
      'provider.responded',
      'turn.completed',
      'reply.requested',
    ]);
    const second = bodyOf(f, 1).messages;
    assert.equal(second.at(-2), {
      role: 'assistant',
      content: null,
      tool_calls: [toolCall('call_1', 'todo', { action: 'write', todos: [{ id: 'milk', content: 'buy milk' }] })],
    });
    assert.equal(second.at(-1), {
      role: 'tool',
      tool_call_id: 'call_1',
      content: JSON.stringify({
        todos: [{ id: 'milk', content: 'buy milk', status: 'pending', priority: 'medium' }],
        total_count: 1,
        message: 'Plan saved: 1 item (1 pending).',
      }),
    });
    assert.ok((bodyOf(f, 0).tools ?? []).length > 0);
  } finally {
    await f.close();
  }
});

test(
  'streaming: ' + 'text deltas become provider.chunk events and tool-call deltas split across chunks still parse',
  async () => {
    const f = await startTurnFixture({ streaming: true });
    try {
      const args = JSON.stringify({ action: 'read' });
      const callDeltas = [
        {
          tool_calls: [
            { index: 0, id: 'call_9', type: 'function', function: { name: 'todo', arguments: args.slice(0, 7) } },
          ],
        },
        { tool_calls: [{ index: 0, function: { arguments: args.slice(7) } }] },
      ];
      f.vendor.reply(
        sse(splitBytes(completionStreamText(callDeltas, 'tool_calls'), 9)),
        sse(splitBytes(completionStreamText([{ content: 'Your plan ' }, { content: 'is empty.' }]), 11)),
      );
      const reply = await f.send('what is on my plan?');
      assert.is(reply.kind === 'turn' && reply.text, 'Your plan is empty.');
      const turn = turnOf(reply);
      const requested = f.events.find((e) => e.turn === turn && e.type === 'tool.requested');
      assert.equal(requested?.data, { call_id: 'call_9', name: 'todo', arguments: { action: 'read' } });
      assert.equal(
        f.events
          .filter((e) => e.turn === turn && e.type === 'provider.chunk')
          .map((e) => e.type === 'provider.chunk' && e.data.delta),
        ['Your plan ', 'is empty.'],
      );
      assert.is(bodyOf(f, 0).stream, true);
    } finally {
      await f.close();
    }
  },
);

test('an invalid todo write is an error result for the model and keeps the previous plan', async () => {
  const f = await startTurnFixture();
  try {
    const write = (todos: unknown) =>
      completion({ tool_calls: [toolCall('c', 'todo', { action: 'write', todos })] }, 'tool_calls');
    f.vendor.reply(write([{ id: 'a', content: 'first' }]), completion({ content: 'ok' }));
    await f.send('plan a');
    f.vendor.reply(
      write([
        { id: 'b', content: 'x' },
        { id: 'b', content: 'y' },
      ]),
      completion({ content: 'failed' }),
    );
    const reply = await f.send('plan b');
    const completed = f.events.filter(
      (e): e is Envelope<'tool.completed'> => e.turn === turnOf(reply) && e.type === 'tool.completed',
    );
    assert.is(completed[0]!.data.ok, false);
    assert.match(completed[0]!.data.content, /"b" is already the id of another item; ids must be unique/);
    f.vendor.reply(
      completion({ tool_calls: [toolCall('r', 'todo', { action: 'read' })] }, 'tool_calls'),
      completion({ content: 'read' }),
    );
    const read = await f.send('read it');
    const result = f.events.find(
      (e): e is Envelope<'tool.completed'> => e.turn === turnOf(read) && e.type === 'tool.completed',
    )!;
    assert.equal(
      (JSON.parse(result.data.content) as { todos: Array<{ id: string }> }).todos.map((t) => t.id),
      ['a'],
    );
  } finally {
    await f.close();
  }
});

test('loop detection warns at repeat_threshold and stops the turn at critical_threshold', async () => {
  const f = await startTurnFixture({
    defaults: { loop_detection: { enabled: true, repeat_threshold: 2, critical_threshold: 3, window_size: 5 } },
  });
  try {
    const same = () =>
      completion({ tool_calls: [toolCall(`c${Math.random()}`, 'todo', { action: 'read' })] }, 'tool_calls');
    f.vendor.reply(same(), same(), same(), completion({ content: 'never reached' }));
    const reply = await f.send('loop please');
    assert.equal(
      { ...reply, turn: undefined },
      { kind: 'turn', turn: undefined, outcome: 'stopped', text: turnTexts.loopDetected('todo', 3) },
    );
    const turn = turnOf(reply);
    assert.equal(
      f.events.filter((e) => e.turn === turn && e.type === 'loop.warned').map((e) => e.data),
      [{ tool: 'todo', count: 2 }],
    );
    assert.match(String(bodyOf(f, 2).messages.at(-1)!.content), /called todo 2 times in a row/);
    assert.is(f.vendor.requests.length, 3);
  } finally {
    await f.close();
  }
});

test('the iteration budget ends a turn that keeps calling tools', async () => {
  const f = await startTurnFixture({ defaults: { max_tool_iterations: 2 } });
  try {
    f.vendor.reply(
      completion({ tool_calls: [toolCall('a', 'todo', { action: 'read' })] }, 'tool_calls'),
      completion({ tool_calls: [toolCall('b', 'list_dir', { path: '.' })] }, 'tool_calls'),
      completion({ content: 'never reached' }),
    );
    const reply = await f.send('keep going');
    assert.equal(
      { ...reply, turn: undefined },
      { kind: 'turn', turn: undefined, outcome: 'stopped', text: turnTexts.iterationBudget(2) },
    );
    assert.is(f.vendor.requests.length, 2);
  } finally {
    await f.close();
  }
});

test('/use arms a skill for the next message of the same session only', async () => {
  const f = await startTurnFixture();
  try {
    assert.equal(await f.send('/use weather'), {
      kind: 'command',
      text: 'Skill weather will be used for your next message.',
    });
    f.vendor.reply(completion({ content: 'Sunny.' }), completion({ content: 'Hi.' }));
    const first = await f.send('Paris?');
    const second = await f.send('hello');
    const started = (t: string) =>
      f.events.find((e): e is Envelope<'turn.started'> => e.turn === t && e.type === 'turn.started')!.data.skill;
    assert.is(started(turnOf(first)), 'weather');
    assert.is(started(turnOf(second)), undefined);
    assert.match(String(bodyOf(f, 0).messages[0]!.content), /## Active skill: weather/);
    assert.not.match(String(bodyOf(f, 1).messages[0]!.content), /## Active skill/);
    assert.equal(await f.send('/use nosuchskill'), {
      kind: 'command',
      text: 'Unknown skill "nosuchskill" (installed: daily-plan, summarize, weather).',
    });
  } finally {
    await f.close();
  }
});

test('/use <skill> <message> forces the skill for that one request', async () => {
  const f = await startTurnFixture();
  try {
    f.vendor.reply(completion({ content: 'Rainy.' }));
    const reply = await f.send('/use weather Oslo?');
    assert.is(reply.kind === 'turn' && reply.text, 'Rainy.');
    assert.is(withoutTime(String(bodyOf(f, 0).messages.at(-1)!.content)), 'Oslo?');
    assert.match(String(bodyOf(f, 0).messages[0]!.content), /## Active skill: weather/);
  } finally {
    await f.close();
  }
});

test('/clear empties the history and the todo plan of the session', async () => {
  const f = await startTurnFixture();
  try {
    f.vendor.reply(
      completion(
        { tool_calls: [toolCall('w', 'todo', { action: 'write', todos: [{ id: 'a', content: 'x' }] })] },
        'tool_calls',
      ),
      completion({ content: 'saved' }),
    );
    await f.send('save a plan');
    assert.equal(await f.send('/clear'), { kind: 'command', text: 'Conversation cleared.' });
    f.vendor.reply(
      completion({ tool_calls: [toolCall('r', 'todo', { action: 'read' })] }, 'tool_calls'),
      completion({ content: 'empty' }),
    );
    const after = await f.send('what do I have?');
    assert.equal(
      bodyOf(f, 2)
        .messages.slice(1)
        .map((m) => ({ ...m, content: withoutTime(String(m.content)) })),
      [{ role: 'user', content: 'what do I have?' }],
    );
    const read = f.events.find(
      (e): e is Envelope<'tool.completed'> => e.turn === turnOf(after) && e.type === 'tool.completed',
    )!;
    assert.is((JSON.parse(read.data.content) as { total_count: number }).total_count, 0);
    assert.ok(f.events.some((e) => e.type === 'session.cleared'));
  } finally {
    await f.close();
  }
});

test('/stop reaches the running turn at once, without waiting behind it', async () => {
  const f = await startTurnFixture();
  try {
    f.vendor.reply({ status: 200, headers: { 'content-type': 'application/json' }, chunks: [], after: 'stall' });
    const requested = f.next('provider.requested');
    const running = f.send('a slow question');
    await requested;
    assert.equal(await f.send('/stop'), { kind: 'none' });
    const reply = await running;
    assert.equal(
      { ...reply, turn: undefined },
      { kind: 'turn', turn: undefined, outcome: 'stopped', text: 'Stopped.' },
    );
    assert.equal(f.events.find((e) => e.type === 'turn.stopped')?.data, {
      reason: 'stop_requested',
      reply: 'Stopped.',
    });
    assert.equal(await f.send('/stop'), { kind: 'command', text: 'Nothing is running.' });
  } finally {
    await f.close();
  }
});

test('two sessions run at the same time; one session runs its turns one after another', async () => {
  const f = await startTurnFixture();
  try {
    f.vendor.reply({ status: 200, headers: { 'content-type': 'application/json' }, chunks: [], after: 'stall' });
    const stalled = f.next('provider.requested');
    const a1 = f.send('first in A', 'a');
    await stalled;
    const a2 = f.send('second in A', 'a');
    f.vendor.reply(completion({ content: 'B answered' }));
    const b = await f.send('only in B', 'b');
    assert.is(b.kind === 'turn' && b.text, 'B answered');
    assert.is(f.vendor.requests.length, 2, 'A2 must not reach the model while A1 runs');
    f.vendor.reply(completion({ content: 'A2 answered' }));
    await f.send('/stop', 'a');
    assert.is((await a1).kind === 'turn' && ((await a1) as { outcome: string }).outcome, 'stopped');
    const second = await a2;
    assert.is(second.kind === 'turn' && second.text, 'A2 answered');
    assert.equal(
      bodyOf(f, 2)
        .messages.slice(1)
        .map((m) => withoutTime(String(m.content))),
      ['first in A', 'Stopped.', 'second in A'],
    );
  } finally {
    await f.close();
  }
});

test('replay reruns a recorded turn as identical, and reports where a changed machine diverges', async () => {
  const f = await startTurnFixture();
  try {
    f.vendor.reply(
      completion({ tool_calls: [toolCall('c1', 'todo', { action: 'read' })] }, 'tool_calls'),
      completion({ content: 'Nothing planned.' }),
    );
    const reply = await f.send('anything planned?');
    await f.runtime.log.flushed();
    const events = f.runtime.log.read({ turn: turnOf(reply) });
    assert.equal(await rerunTurn(events), { identical: true, compared: 8 });
    const changed = turnMachine.provide({
      actions: {
        usePrompt: assign((_, prompt: BuiltPrompt) => ({
          system: prompt.system,
          messages: prompt.messages,
          iteration: 2,
        })),
      },
    });
    const result = await rerunTurn(events, changed);
    assert.is(result.identical, false);
    assert.equal(result.identical === false && [result.index, result.expected?.type, result.actual?.data], [
      1,
      'provider.requested',
      { model_name: 'fast', stream: false, iteration: 2, message_count: 1 },
    ]);
  } finally {
    await f.close();
  }
});

test('a stopped turn reruns identical too', async () => {
  const f = await startTurnFixture();
  try {
    f.vendor.reply({ status: 200, headers: { 'content-type': 'application/json' }, chunks: [], after: 'stall' });
    const requested = f.next('provider.requested');
    const running = f.send('slow');
    await requested;
    await f.send('/stop');
    const reply = await running;
    await f.runtime.log.flushed();
    assert.equal(await rerunTurn(f.runtime.log.read({ turn: turnOf(reply) })), { identical: true, compared: 3 });
  } finally {
    await f.close();
  }
});

test(
  'a long history is summarized by the model into a session.compacted checkpoint, ' +
    'and the prompt keeps the newest messages',
  async () => {
    const f = await startTurnFixture();
    try {
      for (let i = 1; i <= 30; i++) {
        f.vendor.reply(completion({ content: `answer ${i}` }));
        await f.send(`question ${i}`);
      }
      f.vendor.reply(
        completion({ content: 'They asked 30 numbered questions.' }),
        completion({ content: 'answer 31' }),
      );
      await f.send('question 31');
      const summarize = bodyOf(f, 30);
      assert.match(String(summarize.messages[0]!.content), /^Summarize the conversation below/);
      assert.match(String(summarize.messages[1]!.content), /^Conversation:\nuser: question 1\nassistant: answer 1\n/);
      assert.match(String(summarize.messages[1]!.content), /assistant: answer 20$/);
      const written = f.events.find((e): e is Envelope<'session.compacted'> => e.type === 'session.compacted')!;
      assert.is(written.data.summary, 'They asked 30 numbered questions.');
      assert.equal(
        written.data.messages.map((m) => m.content),
        Array.from({ length: 10 }, (_, i) => [`question ${21 + i}`, `answer ${21 + i}`]).flat(),
      );
      const turn = bodyOf(f, 31).messages;
      assert.match(
        String(turn[0]!.content),
        /## Summary of the conversation so far\n\nThey asked 30 numbered questions\.$/,
      );
      assert.equal(
        turn.slice(1).map((m) => withoutTime(String(m.content))),
        [...Array.from({ length: 10 }, (_, i) => [`question ${21 + i}`, `answer ${21 + i}`]).flat(), 'question 31'],
      );
    } finally {
      await f.close();
    }
  },
);

test.run();
