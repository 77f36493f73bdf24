import { assign, fromPromise, setup } from 'xstate';

/** Whose turn asked for the task: its keys, and the session of the user's conversation it all began in. */
export interface TaskParent {
  agent: string;
  session: string;
  turn: string;
  /** The first non-subagent session of the chain: `/stop` and `/subagents` there reach every task under it. */
  root: string;
}

/** Where the user is: a spawned task reports there, and its child's tools act on behalf of that chat. */
export interface TaskOrigin {
  channel: string;
  chat: string;
  /** The parent's turn came over a network: the child may do no more than such a turn may (exec). */
  remote: boolean;
}

export interface SubagentTaskInput {
  id: string;
  mode: 'spawn' | 'subagent';
  /** The agent that runs the task. */
  agent: string;
  label?: string;
  task: string;
  depth: number;
  /** The child's session key (channel `subagent`). */
  sessionKey: string;
  parent: TaskParent;
  origin: TaskOrigin;
  createdAt: number;
  /** How long the task may wait for a free slot, and run. */
  slotWaitMs: number;
  timeoutMs: number;
}

/** How the child's turn ended, as the host's `runChild` reports it. */
export interface ChildOutcome {
  outcome: 'completed' | 'stopped' | 'failed' | 'aborted';
  reply: string;
  turn?: string;
}

export interface SubagentTaskContext extends SubagentTaskInput {
  startedAt?: number;
  endedAt?: number;
  /** The child's final answer (completed) or last words (failed). */
  answer?: string;
  /** Why it failed or was canceled. */
  reason?: string;
  turn?: string;
}

/**
 * `SLOT_FREE`: the host found a free slot in the parent session (it counts the tasks `running` there).
 * `CANCEL`: `/stop` in the user's chat, the parent turn stopped, or the gateway stopping, with why.
 */
export type SubagentTaskEvent = { type: 'SLOT_FREE' } | { type: 'CANCEL'; reason: string };

export type SubagentStatus = 'completed' | 'failed' | 'canceled';

const minutes = (ms: number): string => (ms % 60_000 === 0 ? `${ms / 60_000} min` : `${Math.round(ms / 1000)} s`);

/** The child's outcome, read from `runChild`'s done event (setup-level guards and actions see events untyped). */
const outcomeOf = (event: unknown): ChildOutcome => (event as { output: ChildOutcome }).output;

/** The end a child's turn leads to: only a completed turn completes the task. */
const childEnded = (outcome: ChildOutcome): { status: SubagentStatus; reason?: string } => {
  if (outcome.outcome === 'completed') return { status: 'completed' };
  if (outcome.outcome === 'aborted') return { status: 'canceled', reason: "the subagent's turn was cut off" };
  return { status: 'failed', reason: outcome.reply };
};

/**
 * One subagent task: `waiting` for a free slot in its parent's session (`slotWait`, then it fails), `running` its
 * child turn (the invoked `runChild`, at most `taskTimeout`), then `completed`, `failed` or `canceled`. Leaving
 * `running` for any reason stops `runChild`, whose abort signal cancels the child's turn. The host provides
 * `runChild`, the clock (`stampStart`, `stampEnd`) and `ended`, which records the end and frees the slot.
 */
export const subagentTaskMachine = setup({
  types: {
    input: {} as SubagentTaskInput,
    context: {} as SubagentTaskContext,
    events: {} as SubagentTaskEvent,
  },
  actors: {
    runChild: fromPromise<ChildOutcome, SubagentTaskContext>(async () => {
      throw new Error('runChild is provided by the host');
    }),
  },
  delays: {
    slotWait: ({ context }) => context.slotWaitMs,
    taskTimeout: ({ context }) => context.timeoutMs,
  },
  actions: {
    // Placeholders: the hosting actor provides the clock and the effects with machine.provide.
    stampStart: () => {},
    stampEnd: () => {},
    ended: (_, _params: { status: SubagentStatus }) => {},
    noteCancel: assign({ reason: ({ event }) => (event as Extract<SubagentTaskEvent, { type: 'CANCEL' }>).reason }),
    noteNoSlot: assign({
      reason: ({ context }) =>
        `no free subagent slot in this session within ${minutes(context.slotWaitMs)}; ` +
        'try again when a running task has ended',
    }),
    noteTimeout: assign({
      reason: ({ context }) => `the subagent did not finish within ${minutes(context.timeoutMs)} and was stopped`,
    }),
    noteChildEnd: assign(({ event }) => {
      const outcome = outcomeOf(event);
      const { reason } = childEnded(outcome);
      return { answer: outcome.reply, ...(outcome.turn ? { turn: outcome.turn } : {}), ...(reason ? { reason } : {}) };
    }),
    noteChildError: assign({
      reason: ({ event }) => {
        const { error } = event as { error?: unknown };
        return `the subagent could not run: ${error instanceof Error ? error.message : String(error)}`;
      },
    }),
  },
  guards: {
    childCompleted: ({ event }) => childEnded(outcomeOf(event)).status === 'completed',
    childCanceled: ({ event }) => childEnded(outcomeOf(event)).status === 'canceled',
  },
}).createMachine({
  id: 'subagent',
  context: ({ input }) => ({ ...input }),
  initial: 'waiting',
  states: {
    waiting: {
      on: {
        SLOT_FREE: { target: 'running' },
        CANCEL: { target: 'canceled', actions: 'noteCancel' },
      },
      after: { slotWait: { target: 'failed', actions: 'noteNoSlot' } },
    },
    running: {
      entry: 'stampStart',
      invoke: {
        id: 'child',
        src: 'runChild',
        input: ({ context }) => context,
        onDone: [
          { guard: 'childCompleted', target: 'completed', actions: 'noteChildEnd' },
          { guard: 'childCanceled', target: 'canceled', actions: 'noteChildEnd' },
          { target: 'failed', actions: 'noteChildEnd' },
        ],
        onError: { target: 'failed', actions: 'noteChildError' },
      },
      on: { CANCEL: { target: 'canceled', actions: 'noteCancel' } },
      after: { taskTimeout: { target: 'failed', actions: 'noteTimeout' } },
    },
    completed: { type: 'final', entry: ['stampEnd', { type: 'ended', params: { status: 'completed' } }] },
    failed: { type: 'final', entry: ['stampEnd', { type: 'ended', params: { status: 'failed' } }] },
    canceled: { type: 'final', entry: ['stampEnd', { type: 'ended', params: { status: 'canceled' } }] },
  },
});
