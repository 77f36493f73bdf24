import { and, assign, enqueueActions, fromPromise, sendParent, sendTo, setup, type DoneActorEvent } from 'xstate';
import type { ChatMessage, ChatResponse, EventData, ImagePart, ToolCall } from '../bus/index.js';
import { loopDetectionMachine, loopWarning, type LoopVerdict } from './loop-detection.js';
import type { Board } from './board.js';
import { turnTexts } from './turn-texts.js';

/** The settings a turn runs with, recorded in `turn.started` so a rerun starts from exactly the same ones. */
export type TurnSettings = EventData<'turn.started'>['settings'];

/** The correlation keys of a turn's events. */
export interface TurnKeys {
  agent?: string;
  session?: string;
  turn: string;
  /** A subagent task's turn: the turn that started the task, and the task. */
  parent?: string;
  task?: string;
}

/** The message a turn answers, as its prompt and tools need it. */
export interface TurnMessage {
  message_id: string;
  channel: string;
  chat: string;
  text: string;
  session_key: string;
  /** Sent over a network: tools apply their remote rules. */
  remote: boolean;
  /** Who sent it: in a group, only they (or an owner) may approve the turn's tool calls. */
  sender?: string;
}

/** The conversation before this message: a summary of older turns and the newest messages. */
export interface TurnHistory {
  summary?: string;
  messages: ChatMessage[];
}

export interface TurnInput {
  keys: TurnKeys;
  settings: TurnSettings;
  message: TurnMessage;
  history: TurnHistory;
  /** The skill forced or armed for this request. */
  skill?: string;
}

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

export interface ToolOutcome {
  ok: boolean;
  content: string;
  /** Images shown to the model with the text (`load_image`): in the tool's message and in `tool.completed`. */
  images?: ImagePart[];
}

/** The inputs of the actors a turn invokes; the host provides the actors (the real ones, or replay's). */
export interface PromptInput {
  keys: TurnKeys;
  message: TurnMessage;
  history: TurnHistory;
  skill?: string;
}
export interface ModelInput {
  keys: TurnKeys;
  settings: TurnSettings;
  call: ModelCall;
}
export interface ToolInput {
  keys: TurnKeys;
  message: TurnMessage;
  call: ToolCall;
}

/** `STOP`: `/stop` (the turn ends with "Stopped."). `ABORT`: shutdown or a lost process; nothing more is recorded. */
export type TurnEvent = { type: 'STOP' } | { type: 'ABORT'; reason: string } | ({ type: 'LOOP_CHECKED' } & LoopVerdict);

/** The events a turn machine records. Replay compares exactly these between a recorded and a new run. */
export const turnRecordTypes = [
  'prompt.built',
  'provider.requested',
  'provider.responded',
  'tool.requested',
  'tool.completed',
  'loop.warned',
  'turn.completed',
  'turn.stopped',
  'turn.failed',
] as const;
type RecordType = (typeof turnRecordTypes)[number];
export type TurnRecord = { [T in RecordType]: { type: T; data: EventData<T> } }[RecordType];

type StopReason = EventData<'turn.stopped'>['reason'];

/** How a turn ended, with its reply. An aborted turn has none. */
type Ending = ({ reason: 'completed' | StopReason } | { reason: 'failed'; code: string; message: string }) & {
  reply: string;
};

export interface TurnContext extends TurnInput {
  system: string;
  messages: ChatMessage[];
  /** Model calls made so far in this turn. */
  iteration: number;
  /** Tool calls of the latest answer still to run, in order; the first is the current one. */
  calls: ToolCall[];
  /** Loop detection's verdict on the current call. */
  loop: LoopVerdict;
  ending?: Ending;
}

export interface TurnOutput {
  outcome: 'completed' | 'stopped' | 'failed' | 'aborted';
  reply: string;
  iterations: number;
  /** Why a failed turn failed (`turn.failed`'s code). */
  code?: string;
}

/** What failed; an error that carries its own `reply` (a hook that ended the turn) says what the user reads. */
function failure(error: unknown): { code: string; message: string; reply?: string } {
  const { code, reply } = (error ?? {}) as { code?: unknown; reply?: unknown };
  const found = {
    code: typeof code === 'string' ? code : 'unknown',
    message: error instanceof Error ? error.message : String(error),
  };
  return typeof reply === 'string' ? Object.assign(found, { reply }) : found;
}

const stopReasonOf = (ending: Ending | undefined): StopReason =>
  ending && ending.reason !== 'completed' && ending.reason !== 'failed' ? ending.reason : 'stop_requested';

const currentCall = (context: TurnContext): ToolCall => context.calls[0]!;
/** The model's answer, on the done event of `callModel`. */
const answerOf = (event: unknown): ChatResponse => (event as DoneActorEvent<ChatResponse>).output;
const replyOf = (answer: ChatResponse): string => (answer.text.trim() === '' ? turnTexts.emptyAnswer : answer.text);
const responded = ({ context, event }: { context: TurnContext; event: DoneActorEvent<ChatResponse> }): TurnRecord => ({
  type: 'provider.responded',
  data: { ...event.output, iteration: context.iteration },
});
function outcomeOf(ending: Ending | undefined): TurnOutput['outcome'] {
  if (!ending) return 'aborted';
  return ending.reason === 'completed' || ending.reason === 'failed' ? ending.reason : 'stopped';
}

/** Loop detection as the turn's child: it answers every call it is shown with `LOOP_CHECKED`. */
const loopChild = loopDetectionMachine.provide({
  actions: { report: sendParent((_, verdict: LoopVerdict) => ({ type: 'LOOP_CHECKED' as const, ...verdict })) },
});

const turnSetup = setup({
  types: {
    input: {} as TurnInput,
    context: {} as TurnContext,
    events: {} as TurnEvent,
    output: {} as TurnOutput,
  },
  actors: {
    // Placeholders: the hosting actor provides the real ones (or replay's recorded answers) with machine.provide.
    buildPrompt: fromPromise<BuiltPrompt, PromptInput>(async () => {
      throw new Error('buildPrompt is not provided');
    }),
    callModel: fromPromise<ChatResponse, ModelInput>(async () => {
      throw new Error('callModel is not provided');
    }),
    runTool: fromPromise<ToolOutcome, ToolInput>(async () => {
      throw new Error('runTool is not provided');
    }),
    loopDetection: loopChild,
  },
  actions: {
    record: (_, _params: TurnRecord) => {},
    // The move into `calling_model` counts its model call.
    usePrompt: assign(({ context }, prompt: BuiltPrompt) => ({
      system: prompt.system,
      messages: prompt.messages,
      iteration: context.iteration + 1,
    })),
    takeCalls: assign(({ context }, answer: ChatResponse) => {
      return {
        calls: answer.tool_calls,
        messages: [
          ...context.messages,
          {
            role: 'assistant' as const,
            content: answer.text,
            tool_calls: answer.tool_calls,
            reasoning: answer.reasoning,
          },
        ],
      };
    }),
    takeVerdict: assign((_, verdict: LoopVerdict) => ({ loop: { state: verdict.state, streak: verdict.streak } })),
    showCall: sendTo('loop', ({ context }) => ({
      type: 'TOOL_CALLED' as const,
      name: currentCall(context).name,
      arguments: currentCall(context).arguments,
    })),
    endForLoop: assign(({ context }, verdict: LoopVerdict) => ({
      ending: {
        reason: 'loop_detected' as const,
        reply: turnTexts.loopDetected(currentCall(context).name, verdict.streak),
      },
    })),
    endForBudget: assign({
      ending: ({ context }) => ({
        reason: 'max_tool_iterations' as const,
        reply: turnTexts.iterationBudget(context.settings.max_tool_iterations),
      }),
    }),
    endForStop: assign({ ending: { reason: 'stop_requested' as const, reply: turnTexts.stopRequested } }),
    endForFailure: assign((_, { error }: { error: unknown }) => {
      const { code, message, reply } = failure(error);
      return { ending: { reason: 'failed' as const, code, message, reply: reply ?? turnTexts.failed(message) } };
    }),
    startLoopDetection: enqueueActions(({ context, enqueue }) => {
      if (context.settings.loop_detection.enabled)
        enqueue.spawnChild('loopDetection', { id: 'loop', input: context.settings.loop_detection });
    }),
    countModelCall: assign({ iteration: ({ context }) => context.iteration + 1 }),
  },
  guards: {
    loopDetectionOff: ({ context }) => !context.settings.loop_detection.enabled,
    // Read on the done event of `callModel` only (named, so the machines page shows them).
    hasToolCalls: ({ event }) => answerOf(event).tool_calls.length > 0,
    callsUnchecked: ({ context, event }) =>
      answerOf(event).tool_calls.length > 0 && !context.settings.loop_detection.enabled,
    loopStops: (_, verdict: LoopVerdict) => verdict.state === 'stopped',
    // Asked before the call that just ran leaves `calls`.
    moreCalls: ({ context }) => context.calls.length > 1,
    budgetSpent: ({ context }) => context.iteration >= context.settings.max_tool_iterations,
  },
});

// The loop warning reaches the model with the tool's result, so it is recorded just before that result. It runs
// only on the done event of `runTool`, whose outcome it reads.
const completeToolAction = turnSetup.createAction(
  enqueueActions(({ context, event, enqueue }) => {
    const { ok, content, images } = (event as unknown as DoneActorEvent<ToolOutcome>).output;
    const shown = images?.length ? { images } : {};
    const call = currentCall(context);
    const warned = context.loop.state === 'warning';
    if (warned)
      enqueue({
        type: 'record',
        params: { type: 'loop.warned', data: { tool: call.name, count: context.loop.streak } },
      });
    enqueue({
      type: 'record',
      params: { type: 'tool.completed', data: { call_id: call.id, name: call.name, ok, content, ...shown } },
    });
    enqueue.assign({
      messages: [
        ...context.messages,
        {
          role: 'tool',
          tool_call_id: call.id,
          name: call.name,
          content: warned ? `${content}\n\n${loopWarning(call.name, context.loop.streak)}` : content,
          ...shown,
        },
      ],
      calls: context.calls.slice(1),
    });
  }),
);

// The answer or outcome an invoked actor settled with, as the params of the guard or action that reads it.
const takeCalls = {
  type: 'takeCalls',
  params: ({ event }: { event: DoneActorEvent<ChatResponse> }) => event.output,
} as const;

/**
 * One turn: build the prompt, call the model, show each tool call it asks for to loop detection, run it, call the
 * model again, reply. Every side effect is an actor the turn invokes (`buildPrompt`, `callModel`, `runTool`), which
 * its host provides; every fact is a `record` action. So replay provides actors that answer from the log and
 * compares what a new build records. Leaving a state stops what it invoked: `/stop` aborts the model call in flight.
 */
export const turnMachine = turnSetup.extend({ actions: { completeTool: completeToolAction } }).createMachine({
  id: 'turn',
  context: ({ input }) => ({
    ...input,
    system: '',
    messages: [],
    iteration: 0,
    calls: [],
    loop: { state: input.settings.loop_detection.enabled ? 'normal' : 'disabled', streak: 0 },
  }),
  entry: 'startLoopDetection',
  initial: 'building_prompt',
  on: {
    STOP: { target: '.stopped', actions: 'endForStop' },
    ABORT: { target: '.aborted' },
  },
  states: {
    building_prompt: {
      invoke: {
        id: 'prompt',
        src: 'buildPrompt',
        input: ({ context }) => ({
          keys: context.keys,
          message: context.message,
          history: context.history,
          skill: context.skill,
        }),
        onDone: {
          target: 'calling_model',
          actions: [
            { type: 'usePrompt', params: ({ event }) => event.output },
            { type: 'record', params: ({ event }) => ({ type: 'prompt.built', data: event.output }) },
          ],
        },
        onError: {
          target: 'failed',
          actions: { type: 'endForFailure', params: ({ event }) => ({ error: event.error }) },
        },
      },
    },
    // The transitions into this state count the model call it makes.
    calling_model: {
      entry: {
        type: 'record',
        params: ({ context }) => ({
          type: 'provider.requested',
          data: {
            model_name: context.settings.model_name,
            stream: context.settings.stream,
            iteration: context.iteration,
            message_count: context.messages.length,
          },
        }),
      },
      invoke: {
        id: 'model',
        src: 'callModel',
        input: ({ context }) => ({
          keys: context.keys,
          settings: context.settings,
          call: { system: context.system, messages: context.messages, iteration: context.iteration },
        }),
        onDone: [
          {
            guard: 'callsUnchecked',
            target: 'running_tool',
            actions: [{ type: 'record', params: responded }, takeCalls],
          },
          {
            guard: 'hasToolCalls',
            target: 'checking_call',
            actions: [{ type: 'record', params: responded }, takeCalls],
          },
          {
            target: 'done',
            actions: [
              { type: 'record', params: responded },
              assign({ ending: ({ event }) => ({ reason: 'completed' as const, reply: replyOf(event.output) }) }),
              {
                type: 'record',
                params: ({ context }) => ({
                  type: 'turn.completed',
                  data: { reply: context.ending?.reply ?? '', iterations: context.iteration },
                }),
              },
            ],
          },
        ],
        onError: {
          target: 'failed',
          actions: { type: 'endForFailure', params: ({ event }) => ({ error: event.error }) },
        },
      },
    },
    // Loop detection judges each call before it runs (with loop detection off a call goes straight to running).
    checking_call: {
      entry: 'showCall',
      on: {
        LOOP_CHECKED: [
          {
            guard: { type: 'loopStops', params: ({ event }) => event },
            target: 'stopped',
            actions: { type: 'endForLoop', params: ({ event }) => event },
          },
          { target: 'running_tool', actions: { type: 'takeVerdict', params: ({ event }) => event } },
        ],
      },
    },
    running_tool: {
      entry: {
        type: 'record',
        params: ({ context }) => {
          const call = currentCall(context);
          return { type: 'tool.requested', data: { call_id: call.id, name: call.name, arguments: call.arguments } };
        },
      },
      invoke: {
        id: 'tool',
        src: 'runTool',
        input: ({ context }) => ({ keys: context.keys, message: context.message, call: currentCall(context) }),
        onDone: [
          // The next call of the same answer: `running_tool` is entered again, so it is recorded and run as the first
          // was.
          {
            guard: and(['moreCalls', 'loopDetectionOff']),
            target: 'running_tool',
            reenter: true,
            actions: 'completeTool',
          },
          { guard: 'moreCalls', target: 'checking_call', actions: 'completeTool' },
          { guard: 'budgetSpent', target: 'stopped', actions: ['completeTool', 'endForBudget'] },
          { target: 'calling_model', actions: ['completeTool', 'countModelCall'] },
        ],
        onError: {
          target: 'failed',
          actions: { type: 'endForFailure', params: ({ event }) => ({ error: event.error }) },
        },
      },
    },
    done: { type: 'final' },
    stopped: {
      type: 'final',
      entry: {
        type: 'record',
        params: ({ context }) => ({
          type: 'turn.stopped',
          data: { reason: stopReasonOf(context.ending), reply: context.ending?.reply ?? '' },
        }),
      },
    },
    failed: {
      type: 'final',
      entry: {
        type: 'record',
        params: ({ context }) => {
          const ending =
            context.ending?.reason === 'failed'
              ? context.ending
              : { code: 'unknown', message: 'unknown failure', reply: context.ending?.reply ?? '' };
          return { type: 'turn.failed', data: { code: ending.code, message: ending.message, reply: ending.reply } };
        },
      },
    },
    aborted: { type: 'final' },
  },
  output: ({ context }) => {
    const { ending } = context;
    const output: TurnOutput = {
      outcome: outcomeOf(ending),
      reply: ending?.reply ?? '',
      iterations: context.iteration,
    };
    return ending?.reason === 'failed' ? { ...output, code: ending.code } : output;
  },
});

export const turnBoard: Board<TurnContext> = {
  id: (context) => `turn:${context.keys.turn}`,
  keys: (context) => context.keys,
  stopReason: (context) => outcomeOf(context.ending),
};
