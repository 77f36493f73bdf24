import { createActor, fromPromise, toPromise } from 'xstate';
import { isDeepStrictEqual } from 'node:util';
import type { ChatResponse, Envelope, ToolCall } from '../bus/index.js';
import {
  turnMachine,
  turnRecordTypes,
  type BuiltPrompt,
  type ModelInput,
  type PromptInput,
  type ToolInput,
  type ToolOutcome,
  type TurnRecord,
} from '../machines/turn.js';
import { recordedDecisions } from './hooks/recorded-decisions.js';
import { TurnHooks } from './hooks/turn-hooks.js';

type Recorded = { type: string; data: unknown };

export type RerunResult =
  | { identical: true; compared: number }
  | { identical: false; index: number; expected?: Recorded; actual?: Recorded };

export class ReplayError extends Error {
  constructor(
    readonly code: 'turn_not_found' | 'turn_incomplete',
    message: string,
  ) {
    super(message);
    this.name = 'ReplayError';
  }
}

/** A recorded failure given back as the model call's error: the same code and message the turn ended with. */
class RecordedFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'RecordedFailure';
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
    if (!e || !a || e.type !== a.type || !isDeepStrictEqual(plain(e.data), plain(a.data)))
      return { identical: false, index, expected: e, actual: a };
  }
  return { identical: true, compared: length };
}

/**
 * Runs the turn machine of the current build again with actors that answer from the recorded events instead of
 * calling out (the prompt, each model answer, each tool result), and compares what it records with what was
 * recorded (types and data; seq and times aside). A turn that ended stopped by `/stop` or cut off is stopped the same
 * way once the recorded answers run out; one that failed gets its recorded failure back. `machine` lets a caller try
 * another build of the machine.
 */
export async function rerunTurn(events: Envelope[], machine = turnMachine): Promise<RerunResult> {
  const started = events.find((e): e is Envelope<'turn.started'> => e.type === 'turn.started');
  const prompt = events.find((e): e is Envelope<'prompt.built'> => e.type === 'prompt.built');
  if (!started) throw new ReplayError('turn_not_found', 'the log has no turn.started for this turn');
  if (!prompt)
    throw new ReplayError('turn_incomplete', 'the turn ended before its prompt was built; there is nothing to rerun');
  const expected: Recorded[] = events
    .filter((e) => recordTypes.has(e.type))
    .map((e) => ({ type: e.type, data: e.data }));
  const answers = events
    .filter((e): e is Envelope<'provider.responded'> => e.type === 'provider.responded')
    .map(({ data: { iteration: _i, ...answer } }) => answer);
  const results = new Map(
    events
      .filter((e): e is Envelope<'tool.completed'> => e.type === 'tool.completed')
      .map((e) => [e.data.call_id, e.data]),
  );
  const ending = events.findLast(
    (e) => e.type === 'turn.stopped' || e.type === 'turn.aborted' || e.type === 'turn.failed',
  );
  const endedByUser =
    ending?.type === 'turn.aborted' || (ending?.type === 'turn.stopped' && ending.data.reason === 'stop_requested');
  const actual: Recorded[] = [];
  let endWhenOut: () => void = () => {};
  const outOfAnswers = <T>(what: string): Promise<T> => {
    if (ending?.type === 'turn.failed')
      return Promise.reject(new RecordedFailure(ending.data.code, ending.data.message));
    if (!endedByUser)
      return Promise.reject(Object.assign(new Error(`the recorded turn has no ${what}`), { code: 'replay_exhausted' }));
    endWhenOut();
    return new Promise<T>(() => {});
  };
  const { settings } = started.data;
  const { agent, session, turn } = started;
  const hooks = new TurnHooks({
    source: recordedDecisions(events),
    record: (decided) => actual.push({ type: 'hook.decided', data: decided }),
    meta: {
      agent,
      session,
      session_key: started.data.session_key,
      turn,
      channel: started.data.channel,
      chat: started.data.chat,
    },
    offered: (name) => prompt.data.tools.includes(name),
    clean: (text) => text,
    now: () => 0,
  });
  const recordedResult = async (call: ToolCall): Promise<ToolOutcome> => {
    const result = results.get(call.id);
    if (!result) return outOfAnswers<ToolOutcome>(`result for tool call ${call.id}`);
    return result.images
      ? { ok: result.ok, content: result.content, images: result.images }
      : { ok: result.ok, content: result.content };
  };
  const replay = machine.provide({
    actors: {
      buildPrompt: fromPromise<BuiltPrompt, PromptInput>(async () => prompt.data),
      callModel: fromPromise<ChatResponse, ModelInput>(({ input: { call }, signal }) =>
        hooks.callModel(
          call.iteration,
          { model: settings.model_name, system: call.system, messages: call.messages, tools: prompt.data.tools },
          signal,
          async () => answers.shift() ?? outOfAnswers<ChatResponse>('further model answer'),
        ),
      ),
      runTool: fromPromise<ToolOutcome, ToolInput>(async ({ input, signal }) => {
        const { ok, content, images } = await hooks.runTool(input.call, signal, recordedResult);
        return images ? { ok, content, images } : { ok, content };
      }),
    },
    actions: { record: (_, record: TurnRecord) => void actual.push({ type: record.type, data: record.data }) },
  });
  const { data } = started;
  const actor = createActor(replay, {
    input: {
      keys: { agent: started.agent, session: started.session, turn: started.turn ?? 'replay' },
      settings: data.settings,
      message: {
        message_id: data.message_id,
        channel: data.channel,
        chat: data.chat,
        text: data.text,
        session_key: data.session_key,
        remote: false,
      },
      history: { messages: [] },
      ...(data.skill !== undefined ? { skill: data.skill } : {}),
    },
  });
  endWhenOut = () =>
    queueMicrotask(() =>
      actor.send(ending?.type === 'turn.aborted' ? { type: 'ABORT', reason: 'replay' } : { type: 'STOP' }),
    );
  const done = toPromise(actor);
  actor.start();
  await done;
  return firstDifference(expected, actual);
}
