import type { ChatMessage, Envelope } from '../../bus/index.js';
import type { EventStore } from './event-store.js';

/**
 * A session's conversation as the log holds it: the summary of older turns and the newest messages, each with its
 * `seq`.
 */
export interface SessionHistory {
  summary?: string;
  messages: Array<{ seq: number; message: ChatMessage }>;
  /** The turn that started with `history: off`: its end stays out too. */
  offTurn?: string;
}

export const emptyHistory = (): SessionHistory => ({ messages: [] });

/**
 * Folds one event into a session's history. A checkpoint (`session.compacted`) or `/clear` starts over; only what the
 * user said and what the assistant finally replied is kept: tool traffic stays in the log. A turn run with the turn
 * profile's `history: off` (its `turn.started` says so) is left out, start and end.
 */
export function foldHistory(history: SessionHistory, event: Envelope): SessionHistory {
  switch (event.type) {
    case 'session.cleared':
      return emptyHistory();
    case 'session.compacted':
      return {
        ...(event.data.summary !== undefined ? { summary: event.data.summary } : {}),
        messages: event.data.messages.map((message) => ({ seq: event.seq, message })),
      };
    case 'turn.started':
      if (event.data.history === 'off')
        return { ...history, ...(event.turn !== undefined ? { offTurn: event.turn } : {}) };
      return {
        ...history,
        messages: [...history.messages, { seq: event.seq, message: { role: 'user', content: event.data.text } }],
      };
    case 'turn.completed':
    case 'turn.stopped':
    case 'turn.failed':
      if (event.turn !== undefined && event.turn === history.offTurn)
        return { ...(history.summary !== undefined ? { summary: history.summary } : {}), messages: history.messages };
      return {
        ...history,
        messages: [
          ...history.messages,
          { seq: event.seq, message: { role: 'assistant', content: event.data.reply, tool_calls: [] } },
        ],
      };
    case 'summary.written':
      return { summary: event.data.summary, messages: history.messages.filter((m) => m.seq > event.data.through_seq) };
    default:
      return history;
  }
}

/** The event types history is made of. */
export const HISTORY_TYPES =
  'session.cleared,session.compacted,summary.written,turn.started,turn.completed,turn.stopped,turn.failed';

/**
 * A session's history read back from its last checkpoint: the log is read newest first until a `session.compacted`
 * or `session.cleared`, so a session's first turn after a restart costs the same at its 5,000th turn as at its 50th.
 * A `summary.written` (logs before #21) covers the messages up to its `through_seq`: reading stops there. Only the
 * history's types are asked for: the turns' prompts in between are passed over unread (each named its system prompt,
 * tools and message list, read back and parsed for every turn since the checkpoint).
 */
export function readHistory(log: EventStore, session: string): SessionHistory {
  const events: Envelope[] = [];
  let coveredThrough: number | undefined;
  for (const event of log.iterate({ session, type: HISTORY_TYPES, order: 'desc' })) {
    if (coveredThrough !== undefined && event.seq <= coveredThrough) break;
    events.push(event);
    if (event.type === 'session.compacted' || event.type === 'session.cleared') break;
    if (event.type === 'summary.written' && coveredThrough === undefined) coveredThrough = event.data.through_seq;
  }
  let history = emptyHistory();
  for (let i = events.length - 1; i >= 0; i--) history = foldHistory(history, events[i]!);
  return history;
}
