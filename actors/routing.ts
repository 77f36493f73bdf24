import type * as z from 'zod';
import { sessionIdOf, type Bus, type EventData, type Envelope, type EventSchema } from '../bus/index.js';
import { parseChatCommand } from './chat-commands.js';

/** A message for one agent's session, as the dispatcher, the terminal, the dashboard, the heartbeat and cron hand it in. */
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
 * Hands a message to its session through the bus: `/stop` as control (`turn.stop.requested`), anything else as work
 * (`message.routed`, which the session's mailbox takes in order).
 */
export function route(bus: Bus, request: SessionRequest): void {
  const { agent, account, media, ...rest } = request;
  const data: EventData<'message.routed'> = { ...rest, account: account ?? 'default', media: media ?? [] };
  const keys = { agent, session: sessionIdOf(request.session_key) };
  if (isStop(request)) bus.publish({ ...keys, type: 'turn.stop.requested', data: { message_id: data.message_id, ...(data.reply ? { reply: data.reply } : {}) } });
  else bus.publish({ ...keys, type: 'message.routed', data });
}

export function replyOf(event: Envelope<'reply.requested'>): SessionReply {
  const { outcome, text } = event.data;
  if (outcome === 'command' || outcome === 'message') return { kind: 'command', text };
  return { kind: 'turn', turn: event.turn ?? '', outcome: outcome === 'restarted' ? 'aborted' : outcome, text };
}

/**
 * Request and answer over the bus, for whoever hands in a message and waits for its answer (the terminal, the
 * dashboard, the heartbeat, cron, tests): it routes the message and resolves with the `reply.requested` of that
 * message. A `/stop` that reached a running turn has no answer of its own (the turn answers "Stopped.").
 */
export class Asker {
  private readonly waiting = new Map<string, (reply: SessionReply) => void>();
  private readonly subscription;

  constructor(private readonly bus: Bus) {
    // A message a hook's `hard_abort` dropped has no answer.
    this.subscription = bus.on('reply.requested', 'message.dropped').subscribe((event) => {
      const resolve = this.waiting.get(event.data.message_id);
      if (!resolve) return;
      this.waiting.delete(event.data.message_id);
      resolve(event.type === 'reply.requested' ? replyOf(event) : { kind: 'none' });
    });
  }

  ask(request: SessionRequest): Promise<SessionReply> {
    const answered = new Promise<SessionReply>((resolve) => this.waiting.set(request.message_id, resolve));
    route(this.bus, request);
    if (isStop(request) && this.waiting.delete(request.message_id)) return Promise.resolve({ kind: 'none' });
    return answered;
  }

  close(): void {
    this.subscription.unsubscribe();
  }
}
