import type { ChatMessage, Envelope } from '../../bus/index.js';

/** A session's conversation as the prompt needs it: the summary of older turns and the recent messages. */
export interface SessionHistory {
  summary?: string;
  messages: Array<{ seq: number; message: ChatMessage }>;
}

export const emptyHistory = (): SessionHistory => ({ messages: [] });

/**
 * Folds one event into a session's history. `/clear` starts over; a summary replaces every message it covers.
 * Only what the user said and what the assistant finally replied is kept: tool traffic stays in the log.
 */
export function foldHistory(history: SessionHistory, event: Envelope): SessionHistory {
  switch (event.type) {
    case 'session.cleared':
      return emptyHistory();
    case 'turn.started':
      return { ...history, messages: [...history.messages, { seq: event.seq, message: { role: 'user', content: event.data.text } }] };
    case 'turn.completed':
    case 'turn.stopped':
    case 'turn.failed':
      return {
        ...history,
        messages: [...history.messages, { seq: event.seq, message: { role: 'assistant', content: event.data.reply, tool_calls: [] } }],
      };
    case 'summary.written':
      return { summary: event.data.summary, messages: history.messages.filter((m) => m.seq > event.data.through_seq) };
    default:
      return history;
  }
}

/** The event types `foldHistory` reads, for reading a session from the log. */
export const HISTORY_TYPES = 'session.cleared,turn.started,turn.completed,turn.stopped,turn.failed,summary.written';
