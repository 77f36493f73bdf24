import { assign, enqueueActions, fromPromise, sendTo, setup, type ActorRefFrom, type DoneActorEvent } from 'xstate';
import type { Envelope, EventDraft, EventType, ReplyOutcome } from '../bus/index.js';
import type { Board } from './board.js';
import { mcpDiscoveryMachine, type McpDiscoveryEvent } from './mcp-discovery.js';
import { skillOverrideMachine, type SkillOverrideEvent } from './skill-override.js';
import { turnMachine, type TurnHistory, type TurnInput, type TurnOutput } from './turn.js';
import { turnTexts } from './turn-texts.js';

/** A routed message waiting in a session's mailbox: the work it handles, one at a time, in arrival order. */
export type SessionMessage = Envelope<'message.routed'>;

export interface SessionKeys {
  agent: string;
  session: string;
  /** A subagent task's session: the turn that started the task, and the task. */
  parent?: string;
  task?: string;
}

export interface SessionInput {
  keys: SessionKeys;
  /** The readable session key (`v=1|agent=…|channel=…|…`). */
  key: string;
  /** Runs discovery for MCP tools (`tools.mcp.enabled`), with the turns an unlocked tool stays. */
  discoveryTtl?: number;
}

/** What a chat command asks the session to do besides answering. */
export type CommandEffect =
  | { type: 'skill'; event: SkillOverrideEvent; draft?: EventDraft<'skill.armed' | 'skill.disarmed'> }
  | { type: 'clear' }
  /** `/use <skill> <message>`: the message runs as a turn with the skill forced. */
  | { type: 'turn'; skill: string; text: string };

export interface CommandOutput {
  /** The command word and its arguments, for `command.handled`. */
  command: string;
  args: string;
  text: string;
  effect?: CommandEffect;
}

/** What a turn starts from once it is prepared (voice messages transcribed, long history compacted). */
export interface PreparedTurn extends TurnInput {
  /** The history the session keeps: what the turn saw (compacted or not). */
  history: TurnHistory;
  /** Said under the turn's reply (a budget at 80%); the turn's recorded reply stays the model's own. */
  notice?: string;
  /** The turn profile's `history: off`: the turn's message and reply stay out of the session's history. */
  history_mode?: 'off';
}

/** A prepared turn, or the answer that stands for it when none may start (a spent budget). */
export type Prepared = PreparedTurn | { refused: string };

export interface CommandInput {
  keys: SessionKeys;
  message: SessionMessage;
  /** The skill armed now, for `/use clear` to name. */
  armed: string | null;
}

export interface PrepareInput {
  keys: SessionKeys;
  key: string;
  message: SessionMessage;
  history: TurnHistory;
  skill?: string;
}

/**
 * - `MESSAGE`: work from the session's mailbox (a routed message), queued behind the one in progress; a control
 *   command (`/approve`, `/deny` and the read-only `/help`, `/list`, `/show`, `/subagents`: the host's `isControl`) is
 *   answered at once instead.
 * - `STOP`: `/stop`, control: reaches the running turn at once; with nothing running the sender hears so (and how
 *   many of the conversation's subagent tasks it stopped: `tasks`).
 * - `ABORT`: shutdown: the running turn ends as aborted, and its message stays open for the next start; like `DRAIN`,
 *   nothing queued starts after it (the queue waits for the next start).
 * - `CANCEL`: someone waiting for a message gave up on it (Ctrl-C in `tern agent`): its turn ends as aborted, or it
 *   leaves the mailbox unrun, and it is answered as aborted; the session goes on with the next message. Without a
 *   `message_id`, the message being handled now.
 * - `DRAIN`: no new message starts from now on (queued ones wait for the next start).
 * - `EVICT`: the agent wants the memory back; an idle session leaves (a later message loads it again).
 * - `FOUND`: an MCP discovery search of the running turn unlocked tools.
 */
export type SessionEvent =
  | { type: 'MESSAGE'; message: SessionMessage }
  | { type: 'STOP'; request: Envelope<'turn.stop.requested'>; tasks: number }
  | { type: 'ABORT'; reason: string }
  | { type: 'CANCEL'; reason: string; message_id?: string }
  | { type: 'DRAIN' }
  | { type: 'EVICT' }
  | { type: 'FOUND'; tools: string[] };

export interface SessionContext extends SessionInput {
  queue: SessionMessage[];
  history: TurnHistory;
  /** The turn being prepared or run for the first message of `queue`. */
  turn?: PreparedTurn;
  /** Set by `/use <skill> <message>`: the skill and text of the turn that command runs. */
  forced?: { skill: string; text: string };
  reply?: { outcome: ReplyOutcome; text: string };
  draining: boolean;
  /** Why the running turn was aborted, for its `turn.aborted`. */
  aborted?: string;
  /** The message being handled was canceled (`CANCEL`): it is answered as aborted. */
  canceled?: boolean;
}

/** A draft typed as its own event type, so a union of drafts checks each member. */
const draft = <T extends EventType>(d: EventDraft<T>): EventDraft => d as EventDraft;

const current = (context: SessionContext): SessionMessage => context.queue[0]!;

/** The armed skill of the session's skill-override child. */
function armedSkill(self: { getSnapshot(): { children: Record<string, unknown> } }): string | null {
  const child = self.getSnapshot().children.skill as ActorRefFrom<typeof skillOverrideMachine> | undefined;
  return child?.getSnapshot().context.armed ?? null;
}

/**
 * The send key of a reply's parts: `<channel entry>:<inbound message>:<turn or "command">` (the outbox adds `:<part>`).
 */
export function replyKey(message: SessionMessage, turn: string | undefined): string {
  return `${message.data.reply?.channel ?? message.data.channel}:${message.data.message_id}:${turn ?? 'command'}`;
}

/**
 * The answer to a `/stop` that found no turn running: the subagent tasks of the conversation it stopped (`tasks`,
 * recorded as a handled command), else that nothing runs.
 */
export function nothingRunning(
  keys: SessionKeys,
  request: Envelope<'turn.stop.requested'>,
  tasks: number,
): EventDraft[] {
  const { message_id, reply } = request.data;
  const key = `${reply?.channel ?? 'stop'}:${message_id}:command`;
  const text = tasks > 0 ? `Stopped ${tasks} subagent task${tasks === 1 ? '' : 's'}.` : 'Nothing is running.';
  const answer = draft({
    ...keys,
    type: 'reply.requested',
    data: { message_id, outcome: 'command', text, key, ...(reply ? { reply } : {}) },
  });
  if (tasks === 0) return [answer];
  return [draft({ ...keys, type: 'command.handled', data: { command: 'stop', args: '', reply: text } }), answer];
}

export const sessionBoard: Board<SessionContext> = {
  id: (context) => `session:${context.keys.session}`,
  keys: (context) => context.keys,
  shown: (context) => ({ queued: Math.max(0, context.queue.length - 1) }),
  stopReason: () => 'idle',
};

/**
 * One conversation. Its mailbox (`queue`) is worked in arrival order, one message at a time: a chat command is
 * answered by `runCommand`, anything else is prepared (`prepareTurn`) and run as an invoked `turn` machine; each
 * ends with `reply.requested`. Sessions run concurrently with each other. `/stop` (`STOP`) is no mailbox work: it
 * reaches the running turn at once. The host provides `loadHistory`, `runCommand`, `prepareTurn`, the `turn`
 * machine with its effects, and `publish` (the bus).
 */
const sessionSetup = setup({
  types: {
    input: {} as SessionInput,
    context: {} as SessionContext,
    events: {} as SessionEvent,
  },
  actors: {
    loadHistory: fromPromise<TurnHistory, SessionKeys>(async () => ({ messages: [] })),
    runCommand: fromPromise<CommandOutput, CommandInput>(async () => {
      throw new Error('runCommand is not provided');
    }),
    prepareTurn: fromPromise<Prepared, PrepareInput>(async () => {
      throw new Error('prepareTurn is not provided');
    }),
    turn: turnMachine,
    skillOverride: skillOverrideMachine,
    mcpDiscovery: mcpDiscoveryMachine,
  },
  actions: {
    publish: (_, _draft: EventDraft) => {},
    /** A control command, answered at once by the host (its events and `reply.requested`). */
    answerNow: (_, _message: SessionMessage) => {},
    enqueue: assign({
      queue: ({ context, event }) => [...context.queue, (event as Extract<SessionEvent, { type: 'MESSAGE' }>).message],
    }),
    startChildren: enqueueActions(({ context, enqueue }) => {
      enqueue.spawnChild('skillOverride', { id: 'skill' });
      if (context.discoveryTtl !== undefined)
        enqueue.spawnChild('mcpDiscovery', { id: 'discovery', input: { ttl: context.discoveryTtl } });
    }),
    useHistory: assign((_, history: TurnHistory) => ({ history })),
    stopTurn: sendTo('turn', { type: 'STOP' }),
    stopBeforeTurn: assign({ reply: { outcome: 'stopped' as const, text: turnTexts.stopRequested } }),
    // Discovery runs only where MCP does.
    toDiscovery: enqueueActions(({ self, enqueue }, event: McpDiscoveryEvent) => {
      if (self.getSnapshot().children.discovery) enqueue.sendTo('discovery', event);
    }),
    drain: assign({ draining: true }),
  },
  guards: {
    hasWork: ({ context }) => context.queue.length > 0 && !context.draining,
    // The host knows the registered chat commands and the plugins' (an unknown `/word` goes to the model).
    isCommand: (_, _message: SessionMessage) => false,
    isControl: (_, _message: SessionMessage) => false,
  },
});

// Actions that enqueue the setup's own (`publish`): their params arrive untyped and are the transition's.
/** The prepared turn starts: recorded as `turn.started`, its user message joins the history (unless history is off). */
const startTurn = sessionSetup.createAction(
  enqueueActions(({ context, enqueue }, params) => {
    const turn = params as PreparedTurn;
    const message = current(context);
    const off = turn.history_mode === 'off';
    enqueue.assign({
      turn,
      history: off
        ? turn.history
        : { ...turn.history, messages: [...turn.history.messages, { role: 'user', content: turn.message.text }] },
    });
    enqueue({
      type: 'publish',
      params: draft({
        ...turn.keys,
        type: 'turn.started',
        data: {
          message_id: message.data.message_id,
          channel: turn.message.channel,
          chat: turn.message.chat,
          text: turn.message.text,
          session_key: context.key,
          ...(turn.skill !== undefined ? { skill: turn.skill } : {}),
          settings: turn.settings,
          ...(off ? { history: 'off' as const } : {}),
        },
      }),
    });
  }),
);

/**
 * The turn ended: its reply joins the history (an aborted turn has none, a turn with history off keeps it out) and
 * becomes the message's reply.
 */
const endTurn = sessionSetup.createAction(
  enqueueActions(({ context, enqueue }, params) => {
    const output = params as TurnOutput;
    if (output.outcome === 'aborted') {
      enqueue({
        type: 'publish',
        params: { ...context.turn!.keys, type: 'turn.aborted', data: { reason: context.aborted ?? 'aborted' } },
      });
      enqueue.assign({ reply: undefined });
      return;
    }
    enqueue.assign({
      history:
        context.turn?.history_mode === 'off'
          ? context.history
          : {
              ...context.history,
              messages: [...context.history.messages, { role: 'assistant', content: output.reply, tool_calls: [] }],
            },
      reply: {
        outcome: output.outcome,
        text: context.turn?.notice ? `${output.reply}\n\n${context.turn.notice}` : output.reply,
      },
    });
    enqueue({ type: 'toDiscovery', params: { type: 'TURN_ENDED' } });
    if (output.code !== 'hook_hard_abort') return;
    // A hook ended the turn with `hard_abort`: what waits behind it is dropped, not run.
    for (const waiting of context.queue.slice(1)) {
      enqueue({
        type: 'publish',
        params: {
          ...context.keys,
          type: 'message.dropped',
          data: { message_id: waiting.data.message_id, reason: 'a hook ended the turn before it with hard_abort' },
        },
      });
    }
    enqueue.assign({ queue: context.queue.slice(0, 1) });
  }),
);

const applyCommand = sessionSetup.createAction(
  enqueueActions(({ context, enqueue }, params) => {
    const output = params as CommandOutput;
    const effect = output.effect;
    if (effect?.type === 'turn') {
      enqueue.assign({ forced: { skill: effect.skill, text: effect.text } });
      enqueue.sendTo('skill', { type: 'USE', skill: effect.skill, message: effect.text });
      return;
    }
    enqueue.assign({ reply: { outcome: 'command', text: output.text } });
    if (effect?.type === 'skill') {
      enqueue.sendTo('skill', effect.event);
      if (effect.draft) enqueue({ type: 'publish', params: effect.draft });
    }
    if (effect?.type === 'clear') {
      enqueue({
        type: 'publish',
        params: { ...context.keys, type: 'session.cleared', data: { session_key: context.key } },
      });
      enqueue.assign({ history: { messages: [] } });
      enqueue.sendTo('skill', { type: 'SESSION_CLEARED' });
      enqueue({ type: 'toDiscovery', params: { type: 'SESSION_CLEARED' } });
    }
    enqueue({
      type: 'publish',
      params: {
        ...context.keys,
        type: 'command.handled',
        data: { command: output.command, args: output.args, reply: output.text },
      },
    });
  }),
);

const abortTurn = sessionSetup.createAction(
  enqueueActions(({ enqueue }, params) => {
    const { reason } = params as { reason: string };
    enqueue.assign({ aborted: reason });
    enqueue.sendTo('turn', { type: 'ABORT', reason });
  }),
);

const nothingToStop = sessionSetup.createAction(
  enqueueActions(({ context, enqueue }, params) => {
    const { request, tasks } = params as Extract<SessionEvent, { type: 'STOP' }>;
    for (const answer of nothingRunning(context.keys, request, tasks)) enqueue({ type: 'publish', params: answer });
  }),
);

/**
 * The message's answer, unless its turn was aborted (then the message stays open for the next start). A subagent
 * task's message hears of its abort too (`aborted`): the task waits for its turn's end.
 */
const reply = sessionSetup.createAction(
  enqueueActions(({ context, enqueue }) => {
    const message = current(context);
    const abortedAnswer = context.keys.task !== undefined || context.canceled;
    const answer = context.reply ?? (abortedAnswer ? { outcome: 'aborted' as const, text: '' } : undefined);
    if (answer) {
      const target = message.data.reply;
      enqueue({
        type: 'publish',
        params: draft({
          ...context.keys,
          ...(context.turn ? { turn: context.turn.keys.turn } : {}),
          type: 'reply.requested',
          data: {
            message_id: message.data.message_id,
            outcome: answer.outcome,
            text: answer.text,
            key: replyKey(message, context.turn?.keys.turn),
            ...(target ? { reply: target } : {}),
          },
        }),
      });
    }
    enqueue.assign({
      queue: context.queue.slice(1),
      turn: undefined,
      forced: undefined,
      reply: undefined,
      aborted: undefined,
      canceled: undefined,
    });
  }),
);

type Cancel = Extract<SessionEvent, { type: 'CANCEL' }>;

/**
 * A canceled message still waiting in the mailbox leaves it unrun, answered as aborted. `from` 1 spares the first,
 * which is being handled (it is canceled in its own state); while the history loads none is.
 */
const dropQueued = sessionSetup.createAction(
  enqueueActions(({ context, enqueue }, params) => {
    const { message_id, from } = params as Cancel & { from: 0 | 1 };
    const dropped = context.queue.find((m, i) => i >= from && m.data.message_id === message_id);
    if (!dropped) return;
    enqueue.assign({ queue: context.queue.filter((m) => m !== dropped) });
    const target = dropped.data.reply;
    enqueue({
      type: 'publish',
      params: draft({
        ...context.keys,
        type: 'reply.requested',
        data: {
          message_id: dropped.data.message_id,
          outcome: 'aborted',
          text: '',
          key: replyKey(dropped, undefined),
          ...(target ? { reply: target } : {}),
        },
      }),
    });
  }),
);

/** `CANCEL` names the message being handled now (or no message at all). */
const cancelsCurrent = ({ context }: { context: SessionContext }, { message_id }: Cancel): boolean =>
  message_id === undefined || current(context).data.message_id === message_id;
const cancelOf = ({ event }: { event: SessionEvent }): Cancel => event as Cancel;
/** The queued message a CANCEL names, looked for from the mailbox's `from`th message on. */
const dropFrom = (event: SessionEvent, from: 0 | 1) => ({ ...cancelOf({ event }), from });

const commandOutput = ({ event }: { event: DoneActorEvent<CommandOutput> }): CommandOutput => event.output;

export const sessionMachine = sessionSetup
  .extend({
    actions: { startTurn, endTurn, applyCommand, reply, abortTurn, nothingToStop, dropQueued },
    guards: { cancelsCurrent },
  })
  .createMachine({
    id: 'session',
    context: ({ input }) => ({ ...input, queue: [], history: { messages: [] }, draining: false }),
    entry: 'startChildren',
    initial: 'loading',
    on: {
      MESSAGE: [
        {
          guard: { type: 'isControl', params: ({ event }) => event.message },
          actions: { type: 'answerNow', params: ({ event }) => event.message },
        },
        { actions: 'enqueue' },
      ],
      DRAIN: { actions: 'drain' },
      ABORT: { actions: 'drain' },
      CANCEL: { actions: { type: 'dropQueued', params: ({ event }: { event: SessionEvent }) => dropFrom(event, 1) } },
      STOP: {
        actions: {
          type: 'nothingToStop',
          params: ({ event }: { event: Extract<SessionEvent, { type: 'STOP' }> }) => event,
        },
      },
      FOUND: { actions: { type: 'toDiscovery', params: ({ event }) => event } },
    },
    states: {
      loading: {
        invoke: {
          id: 'history',
          src: 'loadHistory',
          input: ({ context }) => context.keys,
          onDone: { target: 'idle', actions: { type: 'useHistory', params: ({ event }) => event.output } },
          onError: 'idle',
        },
        on: {
          CANCEL: {
            actions: { type: 'dropQueued', params: ({ event }: { event: SessionEvent }) => dropFrom(event, 0) },
          },
        },
      },
      idle: {
        always: { guard: 'hasWork', target: 'handling' },
        on: { EVICT: 'evicted' },
      },
      handling: {
        initial: 'choosing',
        states: {
          choosing: {
            always: [
              { guard: { type: 'isCommand', params: ({ context }) => current(context) }, target: 'command' },
              { target: 'preparing' },
            ],
          },
          command: {
            invoke: {
              id: 'command',
              src: 'runCommand',
              input: ({ context, self }) => ({
                keys: context.keys,
                message: current(context),
                armed: armedSkill(self),
              }),
              onDone: [
                {
                  guard: ({ event }) => event.output.effect?.type === 'turn',
                  target: 'preparing',
                  actions: { type: 'applyCommand', params: commandOutput },
                },
                { target: 'replying', actions: { type: 'applyCommand', params: commandOutput } },
              ],
              onError: {
                target: 'replying',
                actions: assign({
                  reply: ({ event }) => ({
                    outcome: 'command' as const,
                    text: `That command failed: ${(event.error as Error)?.message ?? String(event.error)}`,
                  }),
                }),
              },
            },
          },
          preparing: {
            entry: enqueueActions(({ context, enqueue }) => {
              // An ordinary message takes the armed skill (the input below reads it first).
              if (!context.forced) enqueue.sendTo('skill', { type: 'MESSAGE' });
            }),
            invoke: {
              id: 'prepare',
              src: 'prepareTurn',
              input: ({ context, self }) => {
                const message = current(context);
                const skill = context.forced?.skill ?? armedSkill(self) ?? undefined;
                const text = context.forced?.text;
                return {
                  keys: context.keys,
                  key: context.key,
                  message: text === undefined ? message : { ...message, data: { ...message.data, text } },
                  history: context.history,
                  ...(skill !== undefined ? { skill } : {}),
                };
              },
              onDone: [
                {
                  guard: ({ event }) => 'refused' in event.output,
                  target: 'replying',
                  actions: assign({
                    reply: ({ event }) => ({
                      outcome: 'command' as const,
                      text: 'refused' in event.output ? event.output.refused : '',
                    }),
                  }),
                },
                {
                  target: 'running',
                  actions: {
                    type: 'startTurn',
                    params: ({ event }: { event: DoneActorEvent<Prepared> }) => event.output as PreparedTurn,
                  },
                },
              ],
              onError: {
                target: 'replying',
                actions: assign({
                  reply: ({ event }) => ({
                    outcome: 'failed' as const,
                    text:
                      'Sorry, this message could not be handled: ' +
                      ((event.error as Error)?.message ?? String(event.error)),
                  }),
                }),
              },
            },
            on: {
              STOP: { target: 'replying', actions: 'stopBeforeTurn' },
              ABORT: { target: 'replying', actions: 'drain' },
              CANCEL: {
                guard: { type: 'cancelsCurrent', params: cancelOf },
                target: 'replying',
                actions: assign({ canceled: true }),
              },
            },
          },
          running: {
            invoke: {
              id: 'turn',
              src: 'turn',
              input: ({ context }) => context.turn!,
              onDone: {
                target: 'replying',
                actions: {
                  type: 'endTurn',
                  params: ({ event }: { event: DoneActorEvent<TurnOutput> }) => event.output,
                },
              },
              onError: {
                target: 'replying',
                actions: assign({
                  reply: ({ event }) => ({
                    outcome: 'failed' as const,
                    text: `Sorry, the turn failed: ${(event.error as Error)?.message ?? String(event.error)}`,
                  }),
                }),
              },
            },
            on: {
              STOP: { actions: 'stopTurn' },
              ABORT: {
                actions: [
                  'drain',
                  {
                    type: 'abortTurn',
                    params: ({ event }: { event: Extract<SessionEvent, { type: 'ABORT' }> }) => event,
                  },
                ],
              },
              CANCEL: {
                guard: { type: 'cancelsCurrent', params: cancelOf },
                actions: [assign({ canceled: true }), { type: 'abortTurn', params: cancelOf }],
              },
            },
          },
          replying: {
            entry: 'reply',
            always: '#session.idle',
          },
        },
      },
      evicted: { type: 'final' },
    },
  });
