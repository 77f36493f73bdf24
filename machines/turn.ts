import { assign, enqueueActions, fromPromise, setup } from 'xstate';
import type { ChatMessage, ChatResponse, EventData, ToolCall } from '../bus/index.js';
import { loopWarning, type LoopDetectionInput } from './loop-detection.js';
import { turnTexts } from './turn-texts.js';

export interface TurnInput {
  modelName: string;
  stream: boolean;
  maxToolIterations: number;
  loopDetection: LoopDetectionInput;
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

/** What the turn's loop-detection machine says after seeing one more tool call. */
export interface LoopVerdict {
  state: 'normal' | 'warning' | 'stopped' | 'disabled';
  streak: number;
}

export interface ToolOutcome {
  ok: boolean;
  content: string;
}

/** The events a turn machine records. Replay compares exactly these between a recorded and a new run. */
export const turnRecordTypes = [
  'prompt.built', 'provider.requested', 'provider.responded', 'tool.requested', 'tool.completed',
  'loop.warned', 'turn.completed', 'turn.stopped', 'turn.failed',
] as const;
type RecordType = (typeof turnRecordTypes)[number];
export type TurnRecord = { [T in RecordType]: { type: T; data: EventData<T> } }[RecordType];

export type TurnEvent = { type: 'STOP' } | { type: 'ABORT'; reason: string };

type Ending = { reason: 'loop_detected' | 'max_tool_iterations' | 'stop_requested' } | { reason: 'failed'; code: string; message: string };

interface TurnContext {
  settings: TurnInput;
  system: string;
  messages: ChatMessage[];
  tools: string[];
  /** Model calls made so far in this turn. */
  iteration: number;
  /** Tool calls of the latest answer still to run, in order. */
  calls: ToolCall[];
  /** The loop-detection machine's verdict on the current call. */
  loop: LoopVerdict;
  reply: string;
  ending?: Ending;
  outcome: TurnOutput['outcome'] | 'running';
}

export interface TurnOutput {
  outcome: 'completed' | 'stopped' | 'failed' | 'aborted';
  reply: string;
  iterations: number;
}

function failure(error: unknown): { code: string; message: string } {
  const code = (error as { code?: unknown })?.code;
  return { code: typeof code === 'string' ? code : 'unknown', message: error instanceof Error ? error.message : String(error) };
}

const currentCall = (context: TurnContext): ToolCall => context.calls[0]!;

/**
 * One turn: build the prompt, call the model, run the tools it asks for one by one, call it again, reply.
 * Every side effect is a provided actor (`buildPrompt`, `callModel`, `runTool`) and every fact is a
 * `record` action, so replay can answer from the log and compare what a new build records.
 */
export const turnMachine = setup({
  types: {
    input: {} as TurnInput,
    context: {} as TurnContext,
    events: {} as TurnEvent,
    output: {} as TurnOutput,
  },
  actors: {
    buildPrompt: fromPromise<BuiltPrompt>(async () => {
      throw new Error('buildPrompt is provided by the hosting actor');
    }),
    callModel: fromPromise<ChatResponse, ModelCall>(async () => {
      throw new Error('callModel is provided by the hosting actor');
    }),
    runTool: fromPromise<ToolOutcome, { call: ToolCall }>(async () => {
      throw new Error('runTool is provided by the hosting actor');
    }),
    // The host runs the loop-detection machine of the turn as a live actor and answers with its state.
    checkLoop: fromPromise<LoopVerdict, { call: ToolCall }>(async () => {
      throw new Error('checkLoop is provided by the hosting actor');
    }),
  },
  actions: {
    record: (_, _params: TurnRecord) => {},
    countModelCall: assign({ iteration: ({ context }) => context.iteration + 1 }),
    endForLoop: assign({
      ending: { reason: 'loop_detected' as const },
      reply: ({ context }) => turnTexts.loopDetected(currentCall(context).name, context.loop.streak),
    }),
    endForBudget: assign({
      ending: { reason: 'max_tool_iterations' as const },
      reply: ({ context }) => turnTexts.iterationBudget(context.settings.maxToolIterations),
    }),
    endForStop: assign({ ending: { reason: 'stop_requested' as const }, reply: turnTexts.stopRequested }),
    endForFailure: assign(({ event }) => {
      const { code, message } = failure((event as { error?: unknown }).error);
      return { ending: { reason: 'failed' as const, code, message }, reply: turnTexts.failed(message) };
    }),
  },
  guards: {
    hasToolCalls: ({ event }) => ((event as { output?: ChatResponse }).output?.tool_calls.length ?? 0) > 0,
    isEmptyAnswer: ({ event }) => ((event as { output?: ChatResponse }).output?.text.trim() ?? '') === '',
    loopStopped: ({ context }) => context.loop.state === 'stopped',
    loopWarned: ({ context }) => context.loop.state === 'warning',
    moreCalls: ({ context }) => context.calls.length > 0,
    budgetSpent: ({ context }) => context.iteration >= context.settings.maxToolIterations,
  },
}).createMachine({
  id: 'turn',
  context: ({ input }) => ({
    settings: input,
    system: '',
    messages: [],
    tools: [],
    iteration: 0,
    calls: [],
    loop: { state: input.loopDetection.enabled ? 'normal' : 'disabled', streak: 0 },
    reply: '',
    outcome: 'running',
  }),
  initial: 'building_prompt',
  on: {
    STOP: { target: '.stopped', actions: 'endForStop' },
    ABORT: { target: '.aborted' },
  },
  states: {
    building_prompt: {
      invoke: {
        src: 'buildPrompt',
        onDone: {
          target: 'calling_model',
          actions: [
            assign(({ event }) => ({ system: event.output.system, messages: event.output.messages, tools: event.output.tools })),
            { type: 'record', params: ({ event }) => ({ type: 'prompt.built', data: event.output }) },
          ],
        },
        onError: { target: 'failed', actions: 'endForFailure' },
      },
    },
    calling_model: {
      entry: [
        'countModelCall',
        {
          type: 'record',
          params: ({ context }) => ({
            type: 'provider.requested',
            data: { model_name: context.settings.modelName, stream: context.settings.stream, iteration: context.iteration, message_count: context.messages.length },
          }),
        },
      ],
      invoke: {
        src: 'callModel',
        input: ({ context }) => ({ system: context.system, messages: context.messages, iteration: context.iteration }),
        onDone: [
          {
            guard: 'hasToolCalls',
            target: 'running_tools',
            actions: [
              { type: 'record', params: ({ context, event }) => ({ type: 'provider.responded', data: { ...event.output, iteration: context.iteration } }) },
              assign(({ context, event }) => ({
                calls: event.output.tool_calls,
                messages: [...context.messages, { role: 'assistant' as const, content: event.output.text, tool_calls: event.output.tool_calls, reasoning: event.output.reasoning }],
              })),
            ],
          },
          {
            target: 'replying',
            actions: [
              { type: 'record', params: ({ context, event }) => ({ type: 'provider.responded', data: { ...event.output, iteration: context.iteration } }) },
              assign({ reply: ({ event }) => (event.output.text.trim() === '' ? turnTexts.emptyAnswer : event.output.text) }),
            ],
          },
        ],
        onError: { target: 'failed', actions: 'endForFailure' },
      },
    },
    running_tools: {
      initial: 'checking_for_loop',
      states: {
        checking_for_loop: {
          invoke: {
            src: 'checkLoop',
            input: ({ context }) => ({ call: currentCall(context) }),
            onDone: { target: 'loop_checked', actions: assign({ loop: ({ event }) => event.output }) },
            onError: { target: '#turn.failed', actions: 'endForFailure' },
          },
        },
        loop_checked: {
          always: [{ guard: 'loopStopped', target: '#turn.stopped', actions: 'endForLoop' }, { target: 'running_tool' }],
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
            src: 'runTool',
            input: ({ context }) => ({ call: currentCall(context) }),
            onDone: {
              target: 'next_call',
              actions: [
                enqueueActions(({ context, enqueue, check }) => {
                  if (!check('loopWarned')) return;
                  enqueue({ type: 'record', params: { type: 'loop.warned', data: { tool: currentCall(context).name, count: context.loop.streak } } });
                }),
                {
                  type: 'record',
                  params: ({ context, event }) => {
                    const call = currentCall(context);
                    return { type: 'tool.completed', data: { call_id: call.id, name: call.name, ok: event.output.ok, content: event.output.content } };
                  },
                },
                assign(({ context, event }) => {
                  const call = currentCall(context);
                  const warned = context.loop.state === 'warning';
                  const content = warned ? `${event.output.content}\n\n${loopWarning(call.name, context.loop.streak)}` : event.output.content;
                  return {
                    messages: [...context.messages, { role: 'tool' as const, tool_call_id: call.id, name: call.name, content }],
                    calls: context.calls.slice(1),
                  };
                }),
              ],
            },
            onError: { target: '#turn.failed', actions: 'endForFailure' },
          },
        },
        next_call: {
          always: [
            { guard: 'moreCalls', target: 'checking_for_loop' },
            { guard: 'budgetSpent', target: '#turn.stopped', actions: 'endForBudget' },
            { target: '#turn.calling_model' },
          ],
        },
      },
    },
    replying: {
      entry: { type: 'record', params: ({ context }) => ({ type: 'turn.completed', data: { reply: context.reply, iterations: context.iteration } }) },
      always: 'done',
    },
    done: { type: 'final', entry: assign({ outcome: 'completed' as const }) },
    stopped: {
      type: 'final',
      entry: [assign({ outcome: 'stopped' as const }), {
        type: 'record',
        params: ({ context }) => ({
          type: 'turn.stopped',
          data: { reason: context.ending?.reason === 'failed' || !context.ending ? 'stop_requested' : context.ending.reason, reply: context.reply },
        }),
      }],
    },
    failed: {
      type: 'final',
      entry: [assign({ outcome: 'failed' as const }), {
        type: 'record',
        params: ({ context }) => {
          const ending = context.ending?.reason === 'failed' ? context.ending : { code: 'unknown', message: 'unknown failure' };
          return { type: 'turn.failed', data: { code: ending.code, message: ending.message, reply: context.reply } };
        },
      }],
    },
    aborted: { type: 'final', entry: assign({ outcome: 'aborted' as const }) },
  },
  output: ({ context }) => ({
    outcome: context.outcome === 'running' ? 'aborted' : context.outcome,
    reply: context.reply,
    iterations: context.iteration,
  }),
});
