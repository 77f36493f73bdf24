import type * as z from 'zod';
import {
  draftOf,
  RequestAbortedError,
  sessionIdOf,
  type Bus,
  type EventData,
  type Envelope,
  type EventDraft,
  type EventSchema,
  type EventType,
  type RequestOptions,
} from '../bus/index.js';
import { parseChatCommand } from './chat-commands.js';

/**
 * A message for one agent's session, as the dispatcher, the terminal, the dashboard, the heartbeat and cron hand it in.
 */
/** `account` and `media` may be left out (`default`, none). */
export type SessionRequest = z.input<EventSchema<'message.routed'>> & { agent: string };

/** What answered a message: a turn, a chat command, or nothing (a `/stop` that reached a running turn). */
export type SessionReply =
  | { kind: 'turn'; turn: string; outcome: 'completed' | 'stopped' | 'failed' | 'aborted'; text: string }
  | { kind: 'command'; text: string }
  | { kind: 'none' };

/** A `/stop` the channel allows is control: it must reach the running turn, not wait behind it. */
function isStop(request: SessionRequest): boolean {
  return parseChatCommand(request.text)?.name === 'stop' && (!request.commands || request.commands.includes('stop'));
}

/**
 * The event that hands a message to its session: `/stop` as control (`turn.stop.requested`), anything else as work
 * (`message.routed`, which the session's mailbox takes in order).
 */
function routingOf(request: SessionRequest): EventDraft<'turn.stop.requested' | 'message.routed'> {
  const { agent, account, media, ...rest } = request;
  const data: EventData<'message.routed'> = { ...rest, account: account ?? 'default', media: media ?? [] };
  const keys = { agent, session: sessionIdOf(request.session_key) };
  if (!isStop(request)) return draftOf(keys, 'message.routed', data);
  const stop = { message_id: data.message_id, ...(data.reply ? { reply: data.reply } : {}) };
  return draftOf(keys, 'turn.stop.requested', stop);
}

/** Hands a message to its session through the bus, answered or not. */
export function route(bus: Bus, request: SessionRequest): void {
  bus.publish(routingOf(request));
}

export function replyOf(event: Envelope<'reply.requested'>): SessionReply {
  const { outcome, text } = event.data;
  if (outcome === 'command' || outcome === 'message') return { kind: 'command', text };
  return { kind: 'turn', turn: event.turn ?? '', outcome: outcome === 'restarted' ? 'aborted' : outcome, text };
}

/** How long a message's answer may take unless the asker says otherwise: a turn still running after this is stuck. */
export const ASK_TIMEOUT_MS = 60 * 60_000;

/** Bounds of one ask: `timeoutMs` (default `ASK_TIMEOUT_MS`) and `signal` reject it (`bus.request`'s errors). */
export type AskOptions = Pick<RequestOptions<EventType, SessionReply>, 'signal' | 'clock'> & { timeoutMs?: number };

/**
 * Request and answer over the bus, for whoever hands in a message and waits for its answer (the terminal, the
 * dashboard, the heartbeat, cron, tests): it routes the message and resolves with the `reply.requested` of that
 * message, or `none` for one a hook's `hard_abort` dropped. A `/stop` that reached a running turn has no answer of its
 * own (the turn answers "Stopped."): it resolves with `none` at once.
 */
export function ask(bus: Bus, request: SessionRequest, options: AskOptions = {}): Promise<SessionReply> {
  const stop = isStop(request);
  // A `/stop` is answered while it is published (no turn to stop) or not at all: the rest of the ask is abandoned.
  const unanswered = stop ? new AbortController() : undefined;
  const signals = [options.signal, unanswered?.signal].filter((signal) => signal !== undefined);
  const answer = bus.request(routingOf(request), {
    reply: {
      on: ['reply.requested', 'message.dropped'],
      pick: (event): SessionReply | undefined => {
        if (event.data.message_id !== request.message_id) return undefined;
        return event.type === 'reply.requested' ? replyOf(event) : { kind: 'none' };
      },
    },
    timeoutMs: options.timeoutMs ?? ASK_TIMEOUT_MS,
    ...(signals.length ? { signal: AbortSignal.any(signals) } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
  });
  if (!unanswered) return answer;
  unanswered.abort('a /stop that reached a running turn has no answer of its own');
  return answer.catch((error: unknown) => {
    if (error instanceof RequestAbortedError && !options.signal?.aborted) return { kind: 'none' } as const;
    throw error;
  });
}
