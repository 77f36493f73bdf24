import type { Bus, Envelope, EventData, EventDraft, EventType, ReplyTarget } from '../bus/index.js';
import type { EventStore } from '../store/log/event-store.js';

/** What a user reads for a turn a restart cut off after it had done something (a tool ran, text was shown). */
export const RESTART_NOTICE = 'I was restarted while working on this; say continue to pick it up';

const CUT_OFF = 'the process ended while this turn was running';
const RUN_AGAIN = 'the process ended before this turn did anything; it runs again';

const RECOVERY_TYPES: EventType[] = [
  'recovery.checkpointed',
  'message.received',
  'message.routed',
  'turn.started',
  'turn.completed',
  'turn.stopped',
  'turn.failed',
  'turn.aborted',
  'tool.requested',
  'reply.requested',
  'reply.delivered',
  'message.sending',
  'message.sent',
  'message.edited',
  'message.dropped',
  'message.undelivered',
];
const ENDINGS: ReadonlySet<string> = new Set(['turn.completed', 'turn.stopped', 'turn.failed']);

export interface Recovered {
  /** Turns the previous run left open, now closed with `turn.aborted`. */
  cutOffTurns: string[];
  /**
   * Work accepted before and handed back to its consumers, in log order: messages to route or to run, replies to
   * deliver. (Replies recovery asks for itself, such as notices, are published and reach the outbox like any reply.)
   */
  requeued: Envelope[];
  /** Inbound messages already accepted (`<channel>:<message id>`): a redelivery by the platform is dropped. */
  seenInbound: string[];
  /** Send keys already sent, or handed to a channel with no word back before the process ended: never sent again. */
  sentKeys: string[];
  /**
   * Placeholders shown before the process ended (`<channel>:<message id>:placeholder` → the shown message's id): a
   * message taken up again has its reply put in its placeholder, which would otherwise say "Thinking…" forever.
   */
  placeholders: Array<[string, string]>;
  /** Of those, the parts handed to a channel that never confirmed them: they may or may not have arrived. */
  unconfirmed: { channel: string; chat: string; send_key: string }[];
  /**
   * Every piece of work accepted before this seq is finished (or was just taken up again, and is tracked from here).
   */
  fromSeq: number;
}

export interface TurnTrack {
  started: Envelope<'turn.started'>;
  ended?: Envelope;
  toolRan: boolean;
}

/** One accepted message and how far it got. */
export interface Track {
  received?: Envelope<'message.received'>;
  routed?: Envelope<'message.routed'>;
  turns: TurnTrack[];
  reply?: Envelope<'reply.requested'>;
  delivered: boolean;
  /** A hook's `hard_abort` dropped it: it is finished, with no answer. */
  dropped?: boolean;
}

/** Where the last run said recovery may start; without a checkpoint (logs before #21), the last run's start. */
function startOf(log: EventStore): number {
  const checkpoint = log.read({ type: 'recovery.checkpointed', order: 'desc', limit: 1 })[0];
  if (checkpoint?.type === 'recovery.checkpointed') return checkpoint.data.from_seq;
  return log.read({ type: 'runtime.started', order: 'desc', limit: 1 })[0]?.seq ?? 0;
}

/** The events recovery folds from `from` on, in log order, each type read through the log's type index. */
function tail(log: EventStore, from: number): Envelope[] {
  return RECOVERY_TYPES.flatMap((type) => log.read({ type, after: Math.max(0, from - 1) })).sort(
    (a, b) => a.seq - b.seq,
  );
}

/**
 * Accepted messages are known by their channel entry and id (`<channel>:<message id>`), which their reply names too.
 */
const keyOf = (channel: string, messageId: string): string => `${channel}:${messageId}`;

/**
 * The log's tail after a restart, folded: every message the previous run accepted and did not finish is taken up
 * again, exactly once.
 * - received, not routed: routed again (the dispatcher's work).
 * - routed, no turn yet: handled (the session's work).
 * - its turn cut off before any tool ran or any text was shown: closed with `turn.aborted` and run again from its
 *   start (a new turn).
 * - its turn cut off after a tool ran, or after streamed text was shown: closed with `turn.aborted`, and the user gets
 *   `RESTART_NOTICE` (a cut streamed message is finished with it), no second run.
 * - answered, not delivered: delivered (the outbox skips the parts already sent).
 * Messages with no chat to answer (the terminal, the heartbeat, cron) only have their open turn closed. With
 * `resume` false (a process that does not serve chats, such as `tern agent`) nothing is taken up: only open turns are
 * closed, and the gateway takes up the rest at its next start.
 */
export interface RecoverOptions {
  resume: boolean;
  /**
   * The parts the previous run was about to hand to their channel (`store/log/send-journal.ts`): a part whose intent
   * is in the log but not here never left and is sent again. Absent (no journal: a cluster account's stream, or a
   * log written before the journal), every intent without its `message.sent` is taken as maybe sent.
   */
  marked?: ReadonlySet<string>;
}

/** The log's tail folded so far: each accepted message and how far it got, and what was sent. */
export interface RecoveryState {
  tracks: Map<string, Track>;
  bySession: Map<string, string>;
  turns: Map<string, TurnTrack>;
  orphanTurns: TurnTrack[];
  seenInbound: string[];
  sentKeys: string[];
  intended: Map<string, Envelope<'message.sending'>>;
  placeholders: Array<[string, string]>;
  shown: Map<string, { id: string; text: string }>;
  byReplyKey: Map<string, Track>;
}

export function initialRecoveryState(): RecoveryState {
  return {
    tracks: new Map(),
    bySession: new Map(),
    turns: new Map(),
    orphanTurns: [],
    seenInbound: [],
    sentKeys: [],
    intended: new Map(),
    placeholders: [],
    shown: new Map(),
    byReplyKey: new Map(),
  };
}

function track(state: RecoveryState, key: string): Track {
  let found = state.tracks.get(key);
  if (!found) state.tracks.set(key, (found = { turns: [], delivered: false }));
  return found;
}

/**
 * Folds one event of the log's tail into the state. It updates the state in place and returns it: a tail can hold
 * many thousands of events, and nothing else holds the state while it is folded.
 */
export function evolve(state: RecoveryState, event: Envelope): RecoveryState {
  switch (event.type) {
    case 'message.received':
      // Logs before #21 routed at once and named no reply address: nothing of theirs is taken up.
      if (event.data.reply_to !== undefined) {
        state.seenInbound.push(keyOf(event.data.channel, event.data.message_id));
        track(state, keyOf(event.data.channel, event.data.message_id)).received = event;
      }
      break;
    case 'message.routed': {
      const reply = event.data.reply;
      if (!reply) break;
      const key = keyOf(reply.channel, event.data.message_id);
      track(state, key).routed = event;
      state.bySession.set(`${event.session}\u0000${event.data.message_id}`, key);
      break;
    }
    case 'turn.started': {
      const turn: TurnTrack = { started: event, toolRan: false };
      state.turns.set(event.turn ?? '', turn);
      const key = state.bySession.get(`${event.session}\u0000${event.data.message_id}`);
      if (key) track(state, key).turns.push(turn);
      else state.orphanTurns.push(turn);
      break;
    }
    case 'tool.requested': {
      const turn = state.turns.get(event.turn ?? '');
      if (turn) turn.toolRan = true;
      break;
    }
    case 'turn.completed':
    case 'turn.stopped':
    case 'turn.failed':
    case 'turn.aborted': {
      const turn = state.turns.get(event.turn ?? '');
      if (turn && !turn.ended) turn.ended = event;
      break;
    }
    case 'reply.requested':
      if (event.data.reply) {
        const found = track(state, keyOf(event.data.reply.channel, event.data.message_id));
        found.reply = event;
        state.byReplyKey.set(event.data.key, found);
      }
      break;
    case 'reply.delivered': {
      const found = state.byReplyKey.get(event.data.key);
      if (found) found.delivered = true;
      break;
    }
    case 'message.dropped': {
      const key = state.bySession.get(`${event.session}\u0000${event.data.message_id}`);
      if (key) track(state, key).dropped = true;
      break;
    }
    case 'message.sending':
      state.intended.set(event.data.send_key, event);
      break;
    case 'message.sent': {
      const { send_key: sendKey, message_id: shownId } = event.data;
      state.intended.delete(sendKey);
      state.sentKeys.push(sendKey);
      if (sendKey.endsWith(':stream') && shownId) state.shown.set(sendKey, { id: shownId, text: event.data.text });
      if (sendKey.endsWith(':placeholder') && shownId) state.placeholders.push([sendKey, shownId]);
      break;
    }
    case 'message.undelivered':
      // Given up, and its chat told: never sent again.
      state.intended.delete(event.data.send_key);
      state.sentKeys.push(event.data.send_key);
      break;
    case 'message.edited':
      for (const stream of state.shown.values()) if (stream.id === event.data.message_id) stream.text = event.data.text;
      break;
    default:
  }
  return state;
}

/** What recovery does: the events to publish, and what it hands back (`Recovered` without the turns it closes). */
export interface RecoveryDecision extends Omit<Recovered, 'cutOffTurns' | 'fromSeq'> {
  /** Published in this order: `turn.aborted` for turns cut off, `reply.requested` for replies never requested. */
  publish: EventDraft[];
  /** The seq of the first piece of work still open, if any (`fromSeq` is the log's next seq otherwise). */
  openFrom: number | undefined;
}

/** Decides, from the folded tail, what the restart publishes and takes up (the rules are `recover`'s). */
export function decide(state: RecoveryState, options: RecoverOptions): RecoveryDecision {
  const { tracks, shown, intended } = state;
  const publish: EventDraft[] = [];
  const abort = (turn: TurnTrack, reason: string): void => {
    if (turn.ended) return;
    const { agent, session } = turn.started;
    publish.push({ agent, session, turn: turn.started.turn, type: 'turn.aborted', data: { reason } });
  };
  const requeued: Envelope[] = [];
  let openFrom = Infinity;
  for (const turn of state.orphanTurns) abort(turn, CUT_OFF);
  for (const [key, t] of tracks) {
    const last = t.turns.at(-1);
    const acted = last !== undefined && (last.toolRan || shown.has(`${key}:${last.started.turn}:stream`));
    if (!options.resume) {
      for (const turn of t.turns) abort(turn, CUT_OFF);
      continue;
    }
    if (t.dropped) continue;
    const first = t.received?.seq ?? t.routed?.seq ?? Infinity;
    if (t.reply) {
      if (!t.delivered) {
        requeued.push(t.reply);
        openFrom = Math.min(openFrom, first);
      }
      continue;
    }
    for (const turn of t.turns.slice(0, -1)) abort(turn, CUT_OFF);
    if (!t.routed) {
      if (t.received) requeued.push(t.received);
      openFrom = Math.min(openFrom, first);
      continue;
    }
    openFrom = Math.min(openFrom, first);
    if (last?.ended && ENDINGS.has(last.ended.type)) {
      // The turn ended and its reply was never requested: it is requested now, from what the turn recorded.
      publish.push(replyRequest(t.routed, last.ended, key));
    } else if (last && acted) {
      abort(last, CUT_OFF);
      publish.push(notice(t.routed, last, shown.get(`${key}:${last.started.turn}:stream`)));
    } else {
      if (last) abort(last, RUN_AGAIN);
      requeued.push(t.routed);
    }
  }
  const unconfirmed = [...intended.values()]
    .filter((e) => options.marked === undefined || options.marked.has(e.data.send_key))
    .map((e) => ({ channel: e.data.channel, chat: e.data.chat, send_key: e.data.send_key }));
  return {
    publish,
    requeued: requeued.sort((a, b) => a.seq - b.seq),
    seenInbound: [...state.seenInbound],
    sentKeys: [...state.sentKeys, ...unconfirmed.map((u) => u.send_key)],
    placeholders: [...state.placeholders],
    unconfirmed,
    openFrom: Number.isFinite(openFrom) ? openFrom : undefined,
  };
}

/** The log's tail after a restart, folded by `evolve`, and what `decide` says to publish, published. */
export function recover(log: EventStore, bus: Bus, options: RecoverOptions): Recovered {
  const state = tail(log, startOf(log)).reduce(evolve, initialRecoveryState());
  const { publish, openFrom, ...taken } = decide(state, options);
  const cutOffTurns: string[] = [];
  for (const draft of publish) {
    bus.publish(draft);
    if (draft.type === 'turn.aborted') cutOffTurns.push(draft.turn ?? '');
  }
  return { cutOffTurns, ...taken, seenInbound: acceptedBefore(log), fromSeq: openFrom ?? log.lastSeq + 1 };
}

/** How many of the last accepted messages a restart knows (the gateway remembers as many, `SEEN_INBOUND`). */
const SEEN_BEFORE = 10_000;

/**
 * The last messages the log accepted, oldest first, from before the tail too: a platform hands out again an update
 * whose acknowledgement never reached it (the poller stopped or died holding it), however long ago its answer went
 * out, and a checkpoint (one is recorded at every clean stop) may lie past it. A cluster member taking an account
 * over after such a stop answered it a second time (#40).
 */
function acceptedBefore(log: EventStore): string[] {
  const seen: string[] = [];
  for (const event of log.iterate({ type: 'message.received', order: 'desc', limit: SEEN_BEFORE })) {
    if (event.type === 'message.received' && event.data.reply_to !== undefined)
      seen.push(keyOf(event.data.channel, event.data.message_id));
  }
  return seen.reverse();
}

function target(routed: Envelope<'message.routed'>): ReplyTarget {
  return routed.data.reply!;
}

/** The reply of a turn that ended but whose reply was not requested before the process died. */
function replyRequest(routed: Envelope<'message.routed'>, ended: Envelope, key: string): EventDraft<'reply.requested'> {
  const outcome = ended.type === 'turn.completed' ? 'completed' : ended.type === 'turn.stopped' ? 'stopped' : 'failed';
  const ends = ended.type === 'turn.completed' || ended.type === 'turn.stopped' || ended.type === 'turn.failed';
  const text = ends ? ended.data.reply : '';
  const data: EventData<'reply.requested'> = {
    message_id: routed.data.message_id,
    outcome,
    text,
    key: `${key}:${ended.turn}`,
    reply: target(routed),
  };
  return { agent: routed.agent, session: routed.session, turn: ended.turn, type: 'reply.requested', data };
}

/** The notice for a turn a restart cut off after it acted; a streamed message it left cut is finished with it. */
function notice(
  routed: Envelope<'message.routed'>,
  turn: TurnTrack,
  stream: { id: string; text: string } | undefined,
): EventDraft<'reply.requested'> {
  const key = `${keyOf(target(routed).channel, routed.data.message_id)}:${turn.started.turn}`;
  return {
    agent: routed.agent,
    session: routed.session,
    turn: turn.started.turn,
    type: 'reply.requested',
    data: {
      message_id: routed.data.message_id,
      outcome: 'restarted',
      text: stream ? `${stream.text}\n\n${RESTART_NOTICE}` : RESTART_NOTICE,
      key,
      reply: target(routed),
      ...(stream ? { edit_of: stream.id } : {}),
    },
  };
}

/**
 * Subagent tasks the previous run spawned and never ended were cut off with it: each gets a `subagent.ended`
 * (`canceled`, saying so) under its parent's keys, so `spawn_status`'s record in the log is never left running.
 */
export function closeCutOffTasks(log: EventStore, bus: Bus): string[] {
  const lastStart = log.read({ type: 'runtime.started', order: 'desc', limit: 1 })[0]?.seq ?? 0;
  const spawned = log.read({ type: 'subagent.spawned', after: lastStart });
  if (spawned.length === 0) return [];
  const ended = new Set(log.read({ type: 'subagent.ended', after: lastStart }).map((e) => e.task));
  const open = spawned.filter(
    (e): e is Envelope<'subagent.spawned'> => e.type === 'subagent.spawned' && !ended.has(e.data.task_id),
  );
  for (const e of open) {
    bus.publish({
      agent: e.agent,
      session: e.session,
      turn: e.turn,
      task: e.data.task_id,
      type: 'subagent.ended',
      data: { task_id: e.data.task_id, status: 'canceled', reason: 'the process ended while this task was running' },
    });
  }
  return open.map((e) => e.data.task_id);
}
