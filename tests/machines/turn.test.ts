import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createActor, fromPromise, toPromise } from 'xstate';
import type { ChatResponse, ToolCall } from '../../bus/index.js';
import {
  turnMachine,
  type BuiltPrompt,
  type ModelCall,
  type ModelInput,
  type PromptInput,
  type ToolInput,
  type ToolOutcome,
  type TurnInput,
  type TurnOutput,
  type TurnRecord,
  type TurnSettings,
} from '../../machines/turn.js';
import { turnTexts } from '../../machines/turn-texts.js';
import { eventually } from '../support/eventually.js';

const settings: TurnSettings = {
  model_name: 'fast',
  stream: false,
  max_tool_iterations: 5,
  loop_detection: { enabled: true, repeat_threshold: 3, critical_threshold: 5, window_size: 10 },
};
const prompt: BuiltPrompt = { system: 'You are Tern.', messages: [{ role: 'user', content: 'hi' }], tools: ['todo'] };
const call = (id: string, args: Record<string, unknown> = { action: 'read' }, name = 'todo'): ToolCall => ({
  id,
  name,
  arguments: args,
});
const answer = (text: string, tool_calls: ToolCall[] = []): ChatResponse => ({ text, tool_calls });

interface Script {
  settings?: Partial<TurnSettings>;
  prompt?: () => Promise<BuiltPrompt>;
  answers: Array<ChatResponse | Error>;
  tool?: (call: ToolCall) => Promise<ToolOutcome>;
}

/**
 * Given a script of the model's answers and tool results (the actors the turn invokes, provided as its host would),
 * when the turn runs, then what it records and the states it passes through.
 */
function start(script: Script) {
  const records: TurnRecord[] = [];
  const modelCalls: ModelCall[] = [];
  const states: string[] = [];
  let signal: AbortSignal | undefined;
  const machine = turnMachine.provide({
    actors: {
      buildPrompt: fromPromise<BuiltPrompt, PromptInput>(script.prompt ?? (async () => prompt)),
      callModel: fromPromise<ChatResponse, ModelInput>(async ({ input, signal: s }) => {
        modelCalls.push(structuredClone(input.call));
        signal = s;
        const next = script.answers.shift();
        if (!next) return new Promise<ChatResponse>(() => {});
        if (next instanceof Error) throw next;
        return next;
      }),
      runTool: fromPromise<ToolOutcome, ToolInput>(({ input }) =>
        (script.tool ?? (async (c) => ({ ok: true, content: `result of ${c.id}` })))(input.call),
      ),
    },
    actions: { record: (_, params) => void records.push(params) },
  });
  const input: TurnInput = {
    keys: { agent: 'main', session: 's1', turn: 't1' },
    settings: { ...settings, ...script.settings },
    message: { message_id: 'm1', channel: 'cli', chat: 'direct:me', text: 'hi', session_key: 'k', remote: false },
    history: { messages: [] },
  };
  const actor = createActor(machine, { input });
  actor.subscribe((s) => states.push(JSON.stringify(s.value)));
  actor.start();
  return {
    actor,
    records,
    modelCalls,
    states,
    signal: () => signal,
    done: () => toPromise(actor) as Promise<TurnOutput>,
  };
}

const types = (records: TurnRecord[]) => records.map((r) => r.type);

test('a plain answer goes building prompt → calling model → done', async () => {
  const run = start({ answers: [answer('Hello!')] });
  assert.equal(await run.done(), { outcome: 'completed', reply: 'Hello!', iterations: 1 });
  assert.equal(types(run.records), ['prompt.built', 'provider.requested', 'provider.responded', 'turn.completed']);
  assert.equal(run.records[1]!.data, { model_name: 'fast', stream: false, iteration: 1, message_count: 1 });
  assert.equal(
    run.states.filter((s, i, all) => s !== all[i - 1]),
    ['"building_prompt"', '"calling_model"', '"done"'],
  );
});

test('an empty answer ends with the fixed empty-answer text', async () => {
  const run = start({ answers: [answer('  ')] });
  assert.equal(await run.done(), { outcome: 'completed', reply: turnTexts.emptyAnswer, iterations: 1 });
});

test(
  'a tool call runs the tool, ' + 'then the model is called again with the assistant call and the tool result',
  async () => {
    const run = start({ answers: [answer('', [call('c1')]), answer('Done.')] });
    assert.equal(await run.done(), { outcome: 'completed', reply: 'Done.', iterations: 2 });
    assert.equal(types(run.records), [
      'prompt.built',
      'provider.requested',
      'provider.responded',
      'tool.requested',
      'tool.completed',
      'provider.requested',
      'provider.responded',
      'turn.completed',
    ]);
    assert.equal(run.modelCalls[1]!.messages.slice(1), [
      { role: 'assistant', content: '', tool_calls: [call('c1')], reasoning: undefined },
      { role: 'tool', tool_call_id: 'c1', name: 'todo', content: 'result of c1' },
    ]);
    assert.equal(run.records[4]!.data, { call_id: 'c1', name: 'todo', ok: true, content: 'result of c1' });
  },
);

test('several calls in one answer run one after another, in order', async () => {
  const run = start({ answers: [answer('', [call('a', { n: 1 }), call('b', { n: 2 })]), answer('ok')] });
  await run.done();
  assert.equal(
    run.records.filter((r) => r.type === 'tool.requested').map((r) => r.type === 'tool.requested' && r.data.call_id),
    ['a', 'b'],
  );
});

test(
  'a tool turn goes building prompt → calling model → ' + 'checking call → running tool → … → calling model → done',
  async () => {
    const run = start({ answers: [answer('', [call('a', { n: 1 }), call('b', { n: 2 })]), answer('ok')] });
    await run.done();
    assert.equal(
      run.states.filter((s, i, all) => s !== all[i - 1]),
      [
        '"building_prompt"',
        '"calling_model"',
        '"checking_call"',
        '"running_tool"',
        '"checking_call"',
        '"running_tool"',
        '"calling_model"',
        '"done"',
      ],
    );
  },
);

test('with loop detection off a call runs without being checked', async () => {
  const run = start({
    settings: { loop_detection: { ...settings.loop_detection, enabled: false } },
    answers: [answer('', [call('a', { n: 1 }), call('b', { n: 2 })]), answer('ok')],
  });
  assert.equal(await run.done(), { outcome: 'completed', reply: 'ok', iterations: 2 });
  assert.equal(
    run.states.filter((s, i, all) => s !== all[i - 1]),
    ['"building_prompt"', '"calling_model"', '"running_tool"', '"calling_model"', '"done"'],
  );
  assert.equal(types(run.records).filter((t) => t === 'tool.completed').length, 2);
});

test(
  'identical calls in one answer stop the turn at ' + 'critical_threshold before the call that reaches it runs',
  async () => {
    const same = Array.from({ length: 6 }, (_, i) => call(`x${i}`));
    const run = start({ answers: [answer('', same), answer('never')] });
    assert.equal(await run.done(), { outcome: 'stopped', reply: turnTexts.loopDetected('todo', 5), iterations: 1 });
    assert.equal(
      run.records.filter((r) => r.type === 'tool.completed').map((r) => r.type === 'tool.completed' && r.data.call_id),
      ['x0', 'x1', 'x2', 'x3'],
    );
    assert.equal(run.records.at(-1), {
      type: 'turn.stopped',
      data: { reason: 'loop_detected', reply: turnTexts.loopDetected('todo', 5) },
    });
  },
);

test('a tool failure is a result the model reads, not a turn failure', async () => {
  const run = start({
    answers: [answer('', [call('c1')]), answer('I see.')],
    tool: async () => ({ ok: false, content: 'access denied' }),
  });
  assert.equal((await run.done()).outcome, 'completed');
  assert.equal(run.modelCalls[1]!.messages.at(-1), {
    role: 'tool',
    tool_call_id: 'c1',
    name: 'todo',
    content: 'access denied',
  });
});

test('the iteration budget stops the turn after max_tool_iterations rounds with the fixed text', async () => {
  const run = start({
    settings: { max_tool_iterations: 2 },
    answers: [answer('', [call('a', { n: 1 })]), answer('', [call('b', { n: 2 })]), answer('never')],
  });
  assert.equal(await run.done(), { outcome: 'stopped', reply: turnTexts.iterationBudget(2), iterations: 2 });
  assert.equal(run.records.at(-1), {
    type: 'turn.stopped',
    data: { reason: 'max_tool_iterations', reply: turnTexts.iterationBudget(2) },
  });
});

test('identical calls warn the model at repeat_threshold and stop the turn at critical_threshold', async () => {
  const same = () => answer('', [call('x', { action: 'read' })]);
  const run = start({
    settings: { max_tool_iterations: 50 },
    answers: [same(), same(), same(), same(), same(), answer('never')],
  });
  assert.equal(await run.done(), { outcome: 'stopped', reply: turnTexts.loopDetected('todo', 5), iterations: 5 });
  assert.equal(
    run.records.filter((r) => r.type === 'loop.warned').map((r) => r.data),
    [
      { tool: 'todo', count: 3 },
      { tool: 'todo', count: 4 },
    ],
  );
  assert.match(run.modelCalls[3]!.messages.at(-1)!.content, /called todo 3 times in a row/);
  assert.equal(run.records.filter((r) => r.type === 'tool.completed').length, 4);
  assert.equal(run.records.at(-1)!.type, 'turn.stopped');
});

test('a provider error fails the turn with its code and a readable reply', async () => {
  const error = Object.assign(new Error('key refused'), { code: 'auth' });
  const run = start({ answers: [error] });
  assert.equal(await run.done(), {
    outcome: 'failed',
    reply: turnTexts.failed('key refused'),
    iterations: 1,
    code: 'auth',
  });
  assert.equal(run.records.at(-1), {
    type: 'turn.failed',
    data: { code: 'auth', message: 'key refused', reply: turnTexts.failed('key refused') },
  });
});

test('a prompt that cannot be built fails the turn before any model call', async () => {
  const run = start({ prompt: async () => Promise.reject(new Error('AGENT.md unreadable')), answers: [] });
  assert.equal((await run.done()).outcome, 'failed');
  assert.equal(types(run.records), ['turn.failed']);
});

test('a tool actor that throws fails the turn', async () => {
  const run = start({ answers: [answer('', [call('c1')])], tool: async () => Promise.reject(new Error('crashed')) });
  assert.equal((await run.done()).outcome, 'failed');
});

test('STOP while the model is answering stops at once and aborts the request', async () => {
  const run = start({ answers: [] });
  await eventually(() => run.signal() !== undefined, true);
  assert.is(run.actor.getSnapshot().value, 'calling_model');
  run.actor.send({ type: 'STOP' });
  assert.equal(await run.done(), { outcome: 'stopped', reply: turnTexts.stopRequested, iterations: 1 });
  assert.ok(run.signal()?.aborted);
  assert.equal(run.records.at(-1), { type: 'turn.stopped', data: { reason: 'stop_requested', reply: 'Stopped.' } });
});

test('ABORT ends the turn as aborted without a reply record and aborts the request', async () => {
  const run = start({ answers: [] });
  await eventually(() => run.signal() !== undefined, true);
  run.actor.send({ type: 'ABORT', reason: 'shutdown' });
  assert.equal((await run.done()).outcome, 'aborted');
  assert.ok(run.signal()?.aborted);
  assert.equal(types(run.records), ['prompt.built', 'provider.requested']);
});

test.run();
