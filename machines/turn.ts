import { assign, enqueueActions, setup, type ActorRef, type DoneStateEvent, type Snapshot } from 'xstate';
import type { ChatMessage, ChatResponse, EventData, ImagePart, ToolCall } from '../bus/index.js';
import { loopWarning, type LoopDetectionInput } from './loop-detection.js';
import { turnTexts } from './turn-texts.js';

/** What the prompt builder hands the machine; `tools` are the names exposed to the model. */
export interface BuiltPrompt {
  system: string;
  messages: ChatMessage[];
  tools: string[];
}

export interface ModelCall {
  system: string;
  messages: ChatMessage[];
  iteration: number;
}

/** What the turn's loop-detection machine says after seeing one more tool call. */
export interface LoopVerdict {
  state: 'normal' | 'warning' | 'stopped' | 'disabled';
  streak: number;
}

/** The verdict on the call about to run, or what kept the loop-detection machine from giving one. */
export type LoopCheck = LoopVerdict | { state: 'failed'; error: unknown };

export interface ToolOutcome {
  ok: boolean;
  content: string;
  /** Images shown to the model with the text (`load_image`): in the tool's message and in `tool.completed`. */
  images?: ImagePart[];
}

/**
 * The effects actor's answer to one request; a request whose work throws is answered with `FAILED`. An answer
 * that leads to a tool call carries the loop check of that call (the answer's first call; the call after the
 * one that ran), so checking it is no step of its own.
 */
export type TurnAnswer =
  | { type: 'PROMPT_BUILT'; prompt: BuiltPrompt }
  | { type: 'MODEL_ANSWERED'; answer: ChatResponse; loop?: LoopCheck }
  | { type: 'TOOL_RAN'; outcome: ToolOutcome; loop?: LoopCheck }
  | { type: 'FAILED'; error: unknown };

export type TurnEvent = { type: 'STOP' } | { type: 'ABORT'; reason: string } | TurnAnswer;

/** A running turn, as its effects actor sees it: the actor to answer. */
export type TurnRef = ActorRef<Snapshot<unknown>, TurnEvent>;

/**
 * Every side effect of a turn is a request to its effects actor, answered with one `TurnAnswer`. `CALL_MODEL`
 * is answered with the loop check of the answer's first tool call, `RUN_TOOL` with that of `next`. `CANCEL`
 * (the turn was stopped or aborted) ends the work still running for it and is not answered.
 */
export type TurnRequest =
  | { type: 'BUILD_PROMPT'; turn: TurnRef }
  | { type: 'CALL_MODEL'; turn: TurnRef; call: ModelCall }
  | { type: 'RUN_TOOL'; turn: TurnRef; call: ToolCall; next?: ToolCall }
  | { type: 'CANCEL'; turn: TurnRef };

type WithoutTurn<R> = R extends TurnRequest ? Omit<R, 'turn'> : never;
/** A request as the machine writes it: the `request` action adds the turn that asks. */
type TurnAsk = WithoutTurn<TurnRequest>;

/** The actor that does a turn's work, long-lived: one can serve many turns. */
export type TurnEffects = ActorRef<Snapshot<unknown>, TurnRequest>;

export interface TurnInput {
  modelName: string;
  stream: boolean;
  maxToolIterations: number;
  loopDetection: LoopDetectionInput;
  /** The host's long-lived actor that does the turn's work: the real model and tools, or replay's recorded answers. */
  effects: TurnEffects;
}

/** The events a turn machine records. Replay compares exactly these between a recorded and a new run. */
export const turnRecordTypes = [
  'prompt.built', 'provider.requested', 'provider.responded', 'tool.requested', 'tool.completed',
  'loop.warned', 'turn.completed', 'turn.stopped', 'turn.failed',
] as const;
type RecordType = (typeof turnRecordTypes)[number];
export type TurnRecord = { [T in RecordType]: { type: T; data: EventData<T> } }[RecordType];

/** Why a turn stopped or failed, with its reply; a completed turn's reply is its last answer's, read by `done`. */
type Ending = ({ reason: 'loop_detected' | 'max_tool_iterations' | 'stop_requested' } | { reason: 'failed'; code: string; message: string }) & { reply: string };

interface TurnContext {
  settings: TurnInput;
  system: string;
  messages: ChatMessage[];
  /** Model calls made so far in this turn. */
  iteration: number;
  /** Tool calls of the latest answer still to run, in order; the first is the one being run. */
  calls: ToolCall[];
  /** The loop-detection machine's verdict on the current call. */
  loop: LoopVerdict;
  ending?: Ending;
}

export interface TurnOutput {
  outcome: 'completed' | 'stopped' | 'failed' | 'aborted';
  reply: string;
  iterations: number;
}

/** What failed; an error that carries its own `reply` (a hook that ended the turn) says what the user reads. */
function failure(error: unknown): { code: string; message: string; reply?: string } {
  const { code, reply } = (error ?? {}) as { code?: unknown; reply?: unknown };
  const found = { code: typeof code === 'string' ? code : 'unknown', message: error instanceof Error ? error.message : String(error) };
  return typeof reply === 'string' ? Object.assign(found, { reply }) : found;
}

const currentCall = (context: TurnContext): ToolCall => context.calls[0]!;

/** The loop check an answer carries: only those that lead to a tool call have one. */
const loopCheckOf = (event: TurnEvent): LoopCheck | undefined => (event.type === 'MODEL_ANSWERED' || event.type === 'TOOL_RAN' ? event.loop : undefined);

/** The verdict an answer carries, if it carries one and the check did not fail. */
function verdictOf(event: TurnEvent): LoopVerdict | undefined {
  const check = loopCheckOf(event);
  return check?.state === 'failed' ? undefined : check;
}

/** What failed: the work of a `FAILED` answer, or the loop check an answer carries. */
function errorOf(event: TurnEvent): unknown {
  if (event.type === 'FAILED') return event.error;
  const check = loopCheckOf(event);
  return check?.state === 'failed' ? check.error : undefined;
}

const responded = ({ context, event }: { context: TurnContext; event: TurnEvent }): TurnRecord => ({
  type: 'provider.responded',
  data: Object.assign({}, (event as Extract<TurnAnswer, { type: 'MODEL_ANSWERED' }>).answer, { iteration: context.iteration }),
});

const replyOf = (answer: ChatResponse): string => (answer.text.trim() === '' ? turnTexts.emptyAnswer : answer.text);

/** The output of a turn that ends in `outcome`: each final state gives its own, and the machine's is that one. */
const outputOf = (outcome: TurnOutput['outcome'], context: TurnContext): TurnOutput => ({ outcome, reply: context.ending?.reply ?? '', iterations: context.iteration });

const turnSetup = setup({
  types: {
    input: {} as TurnInput,
    context: {} as TurnContext,
    events: {} as TurnEvent,
    output: {} as TurnOutput,
  },
  actions: {
    record: (_, _params: TurnRecord) => {},
    // A plain send, not `sendTo`: the effects actor answers in a later microtask anyway, and `sendTo` cost a
    // resolved action, a deferred call and a relay per request.
    request: ({ context, self }, request: TurnAsk) => {
      const asked: TurnRequest = Object.assign({}, request, { turn: self });
      context.settings.effects.send(asked);
    },
    // The move into `calling_model` counts its model call.
    usePrompt: assign(({ context, event }) => {
      const { prompt } = event as Extract<TurnAnswer, { type: 'PROMPT_BUILT' }>;
      return { system: prompt.system, messages: prompt.messages, iteration: context.iteration + 1 };
    }),
    endForLoop: assign({
      ending: ({ context }) => ({ reason: 'loop_detected' as const, reply: turnTexts.loopDetected(currentCall(context).name, context.loop.streak) }),
    }),
    endForBudget: assign({
      ending: ({ context }) => ({ reason: 'max_tool_iterations' as const, reply: turnTexts.iterationBudget(context.settings.maxToolIterations) }),
    }),
    endForStop: assign({ ending: { reason: 'stop_requested' as const, reply: turnTexts.stopRequested } }),
    endForFailure: assign(({ event }) => {
      const { code, message, reply } = failure(errorOf(event));
      return { ending: { reason: 'failed' as const, code, message, reply: reply ?? turnTexts.failed(message) } };
    }),
    // The answer's calls become the turn's, the first with its verdict.
    takeCalls: assign(({ context, event }) => {
      const { answer } = event as Extract<TurnAnswer, { type: 'MODEL_ANSWERED' }>;
      return {
        calls: answer.tool_calls,
        messages: [...context.messages, { role: 'assistant' as const, content: answer.text, tool_calls: answer.tool_calls, reasoning: answer.reasoning }],
        loop: verdictOf(event) ?? context.loop,
      };
    }),
  },
  guards: {
    hasToolCalls: ({ event }) => (event as Extract<TurnAnswer, { type: 'MODEL_ANSWERED' }>).answer.tool_calls.length > 0,
    loopCheckFailed: ({ event }) => loopCheckOf(event)?.state === 'failed',
    loopStops: ({ event }) => loopCheckOf(event)?.state === 'stopped',
    loopWarned: ({ context }) => context.loop.state === 'warning',
    // The call that just ran is still first in `calls`.
    moreCalls: ({ context }) => context.calls.length > 1,
    budgetSpent: ({ context }) => context.iteration >= context.settings.maxToolIterations,
  },
});

// The loop warning reaches the model with the tool's result, so it is recorded just before that result.
// The same assign moves on to the next call and its verdict, or before a model call counts that call: each
// assign clones the snapshot, so a transition has at most one.
const completeTool = (countsModelCall: boolean) => turnSetup.createAction(enqueueActions(({ context, event, enqueue, check }) => {
  const call = currentCall(context);
  const { ok, content, images } = (event as Extract<TurnAnswer, { type: 'TOOL_RAN' }>).outcome;
  const shown = images?.length ? { images } : {};
  const warned = check('loopWarned');
  if (warned) enqueue({ type: 'record', params: { type: 'loop.warned', data: { tool: call.name, count: context.loop.streak } } });
  enqueue({ type: 'record', params: { type: 'tool.completed', data: { call_id: call.id, name: call.name, ok, content, ...shown } } });
  enqueue.assign({
    messages: [...context.messages, { role: 'tool', tool_call_id: call.id, name: call.name, content: warned ? `${content}\n\n${loopWarning(call.name, context.loop.streak)}` : content, ...shown }],
    calls: context.calls.slice(1),
    loop: verdictOf(event) ?? context.loop,
    iteration: countsModelCall ? context.iteration + 1 : context.iteration,
  });
}));

/**
 * One turn: build the prompt, call the model, run the tools it asks for one by one, call it again, reply.
 * Every side effect is a request to the effects actor of the input, which answers with an event; every
 * fact is a `record` action. So replay can answer from the log and compare what a new build records.
 * No actor is invoked: a turn is one actor, which moves once per answer.
 */
export const turnMachine = turnSetup.extend({ actions: { completeTool: completeTool(false), completeToolThenCallModel: completeTool(true) } }).createMachine({
  id: 'turn',
  context: ({ input }) => ({
    settings: input,
    system: '',
    messages: [],
    iteration: 0,
    calls: [],
    loop: { state: input.loopDetection.enabled ? 'normal' : 'disabled', streak: 0 },
  }),
  initial: 'building_prompt',
  on: {
    STOP: { target: '.stopped', actions: ['endForStop', { type: 'request', params: { type: 'CANCEL' } }] },
    ABORT: { target: '.aborted', actions: { type: 'request', params: { type: 'CANCEL' } } },
    FAILED: { target: '.failed', actions: 'endForFailure' },
  },
  states: {
    building_prompt: {
      entry: { type: 'request', params: { type: 'BUILD_PROMPT' } },
      on: {
        PROMPT_BUILT: {
          target: 'calling_model',
          actions: [
            'usePrompt',
            { type: 'record', params: ({ event }) => ({ type: 'prompt.built', data: event.prompt }) },
          ],
        },
      },
    },
    // The transitions into this state count the model call it makes.
    calling_model: {
      entry: [
        {
          type: 'record',
          params: ({ context }) => ({
            type: 'provider.requested',
            data: { model_name: context.settings.modelName, stream: context.settings.stream, iteration: context.iteration, message_count: context.messages.length },
          }),
        },
        {
          type: 'request',
          params: ({ context }) => ({ type: 'CALL_MODEL', call: { system: context.system, messages: context.messages, iteration: context.iteration } }),
        },
      ],
      on: {
        MODEL_ANSWERED: [
          { guard: 'loopCheckFailed', target: 'failed', actions: [{ type: 'record', params: responded }, 'endForFailure'] },
          { guard: 'loopStops', target: 'stopped', actions: [{ type: 'record', params: responded }, 'takeCalls', 'endForLoop'] },
          { guard: 'hasToolCalls', target: 'running_tool', actions: [{ type: 'record', params: responded }, 'takeCalls'] },
          {
            target: 'done',
            actions: [
              { type: 'record', params: responded },
              { type: 'record', params: ({ context, event }) => ({ type: 'turn.completed', data: { reply: replyOf(event.answer), iterations: context.iteration } }) },
            ],
          },
        ],
      },
    },
    // One state for every call of an answer (a nested state cost xstate more work per move). Each call was judged
    // by loop detection before it gets here: the answer that leads to it carries the verdict.
    running_tool: {
      entry: [
        {
          type: 'record',
          params: ({ context }) => {
            const call = currentCall(context);
            return { type: 'tool.requested', data: { call_id: call.id, name: call.name, arguments: call.arguments } };
          },
        },
        { type: 'request', params: ({ context }) => ({ type: 'RUN_TOOL', call: currentCall(context), next: context.calls[1] }) },
      ],
      on: {
        TOOL_RAN: [
          { guard: 'loopCheckFailed', target: 'failed', actions: ['completeTool', 'endForFailure'] },
          { guard: 'loopStops', target: 'stopped', actions: ['completeTool', 'endForLoop'] },
          // The next call of the same answer: entered again, so it is recorded and run as the first was.
          { guard: 'moreCalls', target: 'running_tool', reenter: true, actions: 'completeTool' },
          { guard: 'budgetSpent', target: 'stopped', actions: ['completeTool', 'endForBudget'] },
          { target: 'calling_model', actions: 'completeToolThenCallModel' },
        ],
      },
    },
    // The reply is the answer's, so the move here copies no context: `done`'s output reads the answer.
    done: { type: 'final', output: ({ context, event }) => ({ outcome: 'completed', reply: replyOf((event as Extract<TurnAnswer, { type: 'MODEL_ANSWERED' }>).answer), iterations: context.iteration }) },
    stopped: {
      type: 'final',
      output: ({ context }) => outputOf('stopped', context),
      entry: {
        type: 'record',
        params: ({ context }) => ({
          type: 'turn.stopped',
          data: { reason: context.ending?.reason === 'failed' || !context.ending ? 'stop_requested' : context.ending.reason, reply: context.ending?.reply ?? '' },
        }),
      },
    },
    failed: {
      type: 'final',
      output: ({ context }) => outputOf('failed', context),
      entry: {
        type: 'record',
        params: ({ context }) => {
          const ending = context.ending?.reason === 'failed' ? context.ending : { code: 'unknown', message: 'unknown failure', reply: context.ending?.reply ?? '' };
          return { type: 'turn.failed', data: { code: ending.code, message: ending.message, reply: ending.reply } };
        },
      },
    },
    aborted: { type: 'final', output: ({ context }) => outputOf('aborted', context) },
  },
  output: ({ event }) => (event as DoneStateEvent<TurnOutput>).output,
});
