import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createActor, toPromise } from 'xstate';
import type { ChatResponse, ToolCall } from '../../bus/index.js';
import { loopChecker } from '../../actors/loop-checker.js';
import { turnEffects } from '../../actors/turn-effects.js';
import { turnMachine, type BuiltPrompt, type ModelCall, type ToolOutcome, type TurnInput, type TurnOutput, type TurnRecord } from '../../machines/turn.js';
import { turnTexts } from '../../machines/turn-texts.js';

const settings: Omit<TurnInput, 'effects'> = {
  modelName: 'fast',
  stream: false,
  maxToolIterations: 5,
  loopDetection: { enabled: true, repeat_threshold: 3, critical_threshold: 5, window_size: 10 },
};
const prompt: BuiltPrompt = { system: 'You are Tern.', messages: [{ role: 'user', content: 'hi' }], tools: ['todo'] };
const call = (id: string, args: Record<string, unknown> = { action: 'read' }, name = 'todo'): ToolCall => ({ id, name, arguments: args });
const answer = (text: string, tool_calls: ToolCall[] = []): ChatResponse => ({ text, tool_calls });

interface Script {
  input?: Partial<Omit<TurnInput, 'effects'>>;
  prompt?: () => Promise<BuiltPrompt>;
  answers: Array<ChatResponse | Error>;
  tool?: (call: ToolCall) => Promise<ToolOutcome>;
}

/** Runs the turn machine with an effects actor answering from a script; returns what it recorded. */
function start(script: Script) {
  const records: TurnRecord[] = [];
  const modelCalls: ModelCall[] = [];
  const states: string[] = [];
  let signal: AbortSignal | undefined;
  const loop = loopChecker({ ...settings, ...script.input }.loopDetection);
  const effects = createActor(turnEffects({
    buildPrompt: script.prompt ?? (async () => prompt),
    callModel: async (input, s) => {
      modelCalls.push(structuredClone(input));
      signal = s;
      const next = script.answers.shift();
      if (!next) return new Promise<ChatResponse>(() => {});
      if (next instanceof Error) throw next;
      return next;
    },
    runTool: (call) => (script.tool ?? (async (c) => ({ ok: true, content: `result of ${c.id}` })))(call),
    checkLoop: (call) => loop.check(call),
  })).start();
  const machine = turnMachine.provide({ actions: { record: (_, params) => records.push(params) } });
  const actor = createActor(machine, { input: { ...settings, ...script.input, effects } });
  actor.subscribe((s) => states.push(JSON.stringify(s.value)));
  actor.start();
  return { actor, records, modelCalls, states, signal: () => signal, done: () => toPromise(actor) as Promise<TurnOutput> };
}

const types = (records: TurnRecord[]) => records.map((r) => r.type);

test('a plain answer goes building prompt → calling model → done', async () => {
  const run = start({ answers: [answer('Hello!')] });
  assert.equal(await run.done(), { outcome: 'completed', reply: 'Hello!', iterations: 1 });
  assert.equal(types(run.records), ['prompt.built', 'provider.requested', 'provider.responded', 'turn.completed']);
  assert.equal(run.records[1]!.data, { model_name: 'fast', stream: false, iteration: 1, message_count: 1 });
  assert.equal(run.states.filter((s, i, all) => s !== all[i - 1]), ['"building_prompt"', '"calling_model"', '"done"']);
});

test('an empty answer ends with the fixed empty-answer text', async () => {
  const run = start({ answers: [answer('  ')] });
  assert.equal(await run.done(), { outcome: 'completed', reply: turnTexts.emptyAnswer, iterations: 1 });
});

test('a tool call runs the tool, then the model is called again with the assistant call and the tool result', async () => {
  const run = start({ answers: [answer('', [call('c1')]), answer('Done.')] });
  assert.equal(await run.done(), { outcome: 'completed', reply: 'Done.', iterations: 2 });
  assert.equal(types(run.records), ['prompt.built', 'provider.requested', 'provider.responded', 'tool.requested', 'tool.completed', 'provider.requested', 'provider.responded', 'turn.completed']);
  assert.equal(run.modelCalls[1]!.messages.slice(1), [
    { role: 'assistant', content: '', tool_calls: [call('c1')], reasoning: undefined },
    { role: 'tool', tool_call_id: 'c1', name: 'todo', content: 'result of c1' },
  ]);
  assert.equal(run.records[4]!.data, { call_id: 'c1', name: 'todo', ok: true, content: 'result of c1' });
});

test('several calls in one answer run one after another, in order', async () => {
  const run = start({ answers: [answer('', [call('a', { n: 1 }), call('b', { n: 2 })]), answer('ok')] });
  await run.done();
  assert.equal(run.records.filter((r) => r.type === 'tool.requested').map((r) => r.type === 'tool.requested' && r.data.call_id), ['a', 'b']);
});

test('a tool turn goes building prompt → calling model → running tool → calling model → done; the loop check is no state', async () => {
  const run = start({ answers: [answer('', [call('a', { n: 1 }), call('b', { n: 2 })]), answer('ok')] });
  await run.done();
  assert.equal(run.states.filter((s, i, all) => s !== all[i - 1]), ['"building_prompt"', '"calling_model"', '"running_tool"', '"calling_model"', '"done"']);
});

test('identical calls in one answer stop the turn at critical_threshold before the call that reaches it runs', async () => {
  const same = Array.from({ length: 6 }, (_, i) => call(`x${i}`));
  const run = start({ answers: [answer('', same), answer('never')] });
  assert.equal(await run.done(), { outcome: 'stopped', reply: turnTexts.loopDetected('todo', 5), iterations: 1 });
  assert.equal(run.records.filter((r) => r.type === 'tool.completed').map((r) => r.type === 'tool.completed' && r.data.call_id), ['x0', 'x1', 'x2', 'x3']);
  assert.equal(run.records.at(-1), { type: 'turn.stopped', data: { reason: 'loop_detected', reply: turnTexts.loopDetected('todo', 5) } });
});

test('a loop check that fails on the next call of an answer fails the turn after the result of the one that ran', async () => {
  const records: TurnRecord[] = [];
  let checks = 0;
  const effects = createActor(turnEffects({
    buildPrompt: () => prompt,
    callModel: async () => answer('', [call('c1'), call('c2')]),
    runTool: async (c) => ({ ok: true, content: `result of ${c.id}` }),
    checkLoop: () => {
      if (++checks === 2) throw Object.assign(new Error('loop machine crashed'), { code: 'loop_failed' });
      return { state: 'normal', streak: 1 };
    },
  })).start();
  const actor = createActor(turnMachine.provide({ actions: { record: (_, params) => records.push(params) } }), { input: { ...settings, effects } });
  const done = toPromise(actor);
  actor.start();
  assert.equal(await done, { outcome: 'failed', reply: turnTexts.failed('loop machine crashed'), iterations: 1 });
  assert.equal(types(records), ['prompt.built', 'provider.requested', 'provider.responded', 'tool.requested', 'tool.completed', 'turn.failed']);
  assert.equal(records.at(-1)!.data, { code: 'loop_failed', message: 'loop machine crashed', reply: turnTexts.failed('loop machine crashed') });
});

test('a tool failure is a result the model reads, not a turn failure', async () => {
  const run = start({ answers: [answer('', [call('c1')]), answer('I see.')], tool: async () => ({ ok: false, content: 'access denied' }) });
  assert.equal((await run.done()).outcome, 'completed');
  assert.equal(run.modelCalls[1]!.messages.at(-1), { role: 'tool', tool_call_id: 'c1', name: 'todo', content: 'access denied' });
});

test('the iteration budget stops the turn after max_tool_iterations rounds with the fixed text', async () => {
  const run = start({ input: { maxToolIterations: 2 }, answers: [answer('', [call('a', { n: 1 })]), answer('', [call('b', { n: 2 })]), answer('never')] });
  assert.equal(await run.done(), { outcome: 'stopped', reply: turnTexts.iterationBudget(2), iterations: 2 });
  assert.equal(run.records.at(-1), { type: 'turn.stopped', data: { reason: 'max_tool_iterations', reply: turnTexts.iterationBudget(2) } });
});

test('identical calls warn the model at repeat_threshold and stop the turn at critical_threshold', async () => {
  const same = () => answer('', [call('x', { action: 'read' })]);
  const run = start({ input: { maxToolIterations: 50 }, answers: [same(), same(), same(), same(), same(), answer('never')] });
  assert.equal(await run.done(), { outcome: 'stopped', reply: turnTexts.loopDetected('todo', 5), iterations: 5 });
  assert.equal(run.records.filter((r) => r.type === 'loop.warned').map((r) => r.data), [{ tool: 'todo', count: 3 }, { tool: 'todo', count: 4 }]);
  assert.match(run.modelCalls[3]!.messages.at(-1)!.content, /called todo 3 times in a row/);
  assert.equal(run.records.filter((r) => r.type === 'tool.completed').length, 4);
  assert.equal(run.records.at(-1)!.type, 'turn.stopped');
});

test('a provider error fails the turn with its code and a readable reply', async () => {
  const error = Object.assign(new Error('key refused'), { code: 'auth' });
  const run = start({ answers: [error] });
  assert.equal(await run.done(), { outcome: 'failed', reply: turnTexts.failed('key refused'), iterations: 1 });
  assert.equal(run.records.at(-1), { type: 'turn.failed', data: { code: 'auth', message: 'key refused', reply: turnTexts.failed('key refused') } });
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

test('a loop check that fails fails the turn before the tool runs', async () => {
  const records: TurnRecord[] = [];
  const effects = createActor(turnEffects({
    buildPrompt: () => prompt,
    callModel: async () => answer('', [call('c1')]),
    runTool: async () => ({ ok: true, content: 'must not run' }),
    checkLoop: () => {
      throw new Error('loop machine crashed');
    },
  })).start();
  const actor = createActor(turnMachine.provide({ actions: { record: (_, params) => records.push(params) } }), { input: { ...settings, effects } });
  const done = toPromise(actor);
  actor.start();
  assert.equal(await done, { outcome: 'failed', reply: turnTexts.failed('loop machine crashed'), iterations: 1 });
  assert.equal(types(records), ['prompt.built', 'provider.requested', 'provider.responded', 'turn.failed']);
});

test('STOP while the model is answering stops at once and aborts the request', async () => {
  const run = start({ answers: [] });
  await new Promise((resolve) => setTimeout(resolve, 5));
  assert.is(run.actor.getSnapshot().value, 'calling_model');
  run.actor.send({ type: 'STOP' });
  assert.equal(await run.done(), { outcome: 'stopped', reply: turnTexts.stopRequested, iterations: 1 });
  assert.ok(run.signal()?.aborted);
  assert.equal(run.records.at(-1), { type: 'turn.stopped', data: { reason: 'stop_requested', reply: 'Stopped.' } });
});

test('ABORT ends the turn as aborted without a reply record and aborts the request', async () => {
  const run = start({ answers: [] });
  await new Promise((resolve) => setTimeout(resolve, 5));
  run.actor.send({ type: 'ABORT', reason: 'shutdown' });
  assert.equal((await run.done()).outcome, 'aborted');
  assert.ok(run.signal()?.aborted);
  assert.equal(types(run.records), ['prompt.built', 'provider.requested']);
});

test.run();
