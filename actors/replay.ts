import { createActor, toPromise } from 'xstate';
import { isDeepStrictEqual } from 'node:util';
import type { ChatResponse, Envelope, ToolCall } from '../bus/index.js';
import { turnMachine, turnRecordTypes, type ToolOutcome, type TurnRecord } from '../machines/turn.js';
import { recordedDecisions } from './hooks/recorded-decisions.js';
import { TurnHooks } from './hooks/turn-hooks.js';
import { loopChecker } from './loop-checker.js';
import { turnEffects } from './turn-effects.js';

type Recorded = { type: string; data: unknown };

export type RerunResult =
  | { identical: true; compared: number }
  | { identical: false; index: number; expected?: Recorded; actual?: Recorded };

export class ReplayError extends Error {
  constructor(readonly code: 'turn_not_found' | 'turn_incomplete', message: string) {
    super(message);
    this.name = 'ReplayError';
  }
}

// The hooks' decisions are compared too: a rerun applies them from the log, so a build that asks at other points
// or applies them differently diverges there.
const recordTypes: ReadonlySet<string> = new Set([...turnRecordTypes, 'hook.decided']);
/** Drops `undefined` fields so a value compares equal to the same value read back from the log. */
const plain = (value: unknown): unknown => JSON.parse(JSON.stringify(value ?? null));

function firstDifference(expected: Recorded[], actual: Recorded[]): RerunResult {
  const length = Math.max(expected.length, actual.length);
  for (let index = 0; index < length; index++) {
    const e = expected[index];
    const a = actual[index];
    if (!e || !a || e.type !== a.type || !isDeepStrictEqual(plain(e.data), plain(a.data))) return { identical: false, index, expected: e, actual: a };
  }
  return { identical: true, compared: length };
}

/**
 * Runs the turn machine of the current build again, answering the prompt, the model and the tools from the
 * recorded events instead of calling out, and compares what it records with what was recorded (types and
 * data; seq and times aside). A turn stopped by `/stop` or cut off is stopped the same way once the recorded
 * answers run out. `machine` lets a caller try another build of the machine.
 */
export async function rerunTurn(events: Envelope[], machine = turnMachine): Promise<RerunResult> {
  const started = events.find((e): e is Envelope<'turn.started'> => e.type === 'turn.started');
  const prompt = events.find((e): e is Envelope<'prompt.built'> => e.type === 'prompt.built');
  if (!started) throw new ReplayError('turn_not_found', 'the log has no turn.started for this turn');
  if (!prompt) throw new ReplayError('turn_incomplete', 'the turn ended before its prompt was built; there is nothing to rerun');
  const expected: Recorded[] = events.filter((e) => recordTypes.has(e.type)).map((e) => ({ type: e.type, data: e.data }));
  const answers = events.filter((e): e is Envelope<'provider.responded'> => e.type === 'provider.responded').map(({ data: { iteration: _i, ...answer } }) => answer);
  const results = new Map(events.filter((e): e is Envelope<'tool.completed'> => e.type === 'tool.completed').map((e) => [e.data.call_id, e.data]));
  const ending = events.findLast((e) => e.type === 'turn.stopped' || e.type === 'turn.aborted');
  const endedByUser = ending?.type === 'turn.aborted' || (ending?.type === 'turn.stopped' && ending.data.reason === 'stop_requested');
  const actual: Recorded[] = [];
  let stopWhenOut: () => void = () => {};
  const outOfAnswers = <T>(what: string): Promise<T> => {
    if (!endedByUser) return Promise.reject(Object.assign(new Error(`the recorded turn has no ${what}`), { code: 'replay_exhausted' }));
    stopWhenOut();
    return new Promise<T>(() => {});
  };
  const { settings } = started.data;
  // Loop detection is logic, not an outside answer: the current build's machine judges the calls again.
  const loop = loopChecker(settings.loop_detection);
  const { agent, session, turn } = started;
  const hooks = new TurnHooks({
    source: recordedDecisions(events),
    record: (decided) => actual.push({ type: 'hook.decided', data: decided }),
    meta: { agent, session, session_key: started.data.session_key, turn, channel: started.data.channel, chat: started.data.chat },
    offered: (name) => prompt.data.tools.includes(name),
    clean: (text) => text,
    now: () => 0,
  });
  const recordedResult = async (call: ToolCall): Promise<ToolOutcome> => {
    const result = results.get(call.id);
    if (!result) return outOfAnswers<ToolOutcome>(`result for tool call ${call.id}`);
    return result.images ? { ok: result.ok, content: result.content, images: result.images } : { ok: result.ok, content: result.content };
  };
  const effects = createActor(turnEffects({
    buildPrompt: () => prompt.data,
    checkLoop: (call) => loop.check(call),
    callModel: (call, signal) =>
      hooks.callModel(call.iteration, { model: settings.model_name, system: call.system, messages: call.messages, tools: prompt.data.tools }, signal, async () => answers.shift() ?? outOfAnswers<ChatResponse>('further model answer')),
    runTool: async (call, signal) => {
      const { ok, content, images } = await hooks.runTool(call, signal, recordedResult);
      return images ? { ok, content, images } : { ok, content };
    },
  })).start();
  const replay = machine.provide({ actions: { record: (_, record: TurnRecord) => actual.push({ type: record.type, data: record.data }) } });
  const actor = createActor(replay, {
    input: { modelName: settings.model_name, stream: settings.stream, maxToolIterations: settings.max_tool_iterations, loopDetection: settings.loop_detection, effects },
  });
  stopWhenOut = () => queueMicrotask(() => actor.send(ending?.type === 'turn.aborted' ? { type: 'ABORT', reason: 'replay' } : { type: 'STOP' }));
  const done = toPromise(actor);
  actor.start();
  await done;
  effects.stop();
  loop.release();
  return firstDifference(expected, actual);
}
