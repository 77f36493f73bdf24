import type { Envelope } from '../../../bus/index.js';
import type { EventLog } from '../../../store/log/event-log.js';
import type { SessionRow } from '../../../web/src/api-shapes.js';

/**
 * Read one exact type at a time, so each read walks the type index instead of the whole log. The sender is on
 * `message.routed` (a channel's `message.received` names no session since #21; logs before it routed there).
 */
const TYPES = ['turn.started', 'message.received', 'message.routed', 'provider.responded', 'turn.completed', 'turn.stopped', 'turn.failed'] as const;

type Rows = Map<string, SessionRow>;
/** Senders of messages whose turn has not started yet (it may start after the next catch-up). */
type Senders = Map<string, string>;

function fold(rows: Rows, senders: Senders, event: Envelope): void {
  const session = event.session;
  if (!session) return;
  if (event.type === 'turn.started') {
    const known = rows.get(session);
    const sender = senders.get(session) ?? known?.sender;
    senders.delete(session);
    rows.set(session, {
      session,
      session_key: event.data.session_key,
      agent: event.agent ?? known?.agent ?? '',
      channel: event.data.channel,
      chat: event.data.chat,
      ...(sender ? { sender } : {}),
      turns: (known?.turns ?? 0) + 1,
      messages: (known?.messages ?? 0) + 1,
      input_tokens: known?.input_tokens ?? 0,
      output_tokens: known?.output_tokens ?? 0,
      first_at: known?.first_at ?? event.at,
      last_at: Math.max(known?.last_at ?? 0, event.at),
      last_turn: event.turn ?? known?.last_turn ?? '',
      last_text: event.at >= (known?.last_at ?? 0) ? event.data.text : (known?.last_text ?? ''),
    });
    return;
  }
  const row = rows.get(session);
  if (event.type === 'message.received' || event.type === 'message.routed') {
    if (row) row.sender = event.data.sender;
    else senders.set(session, event.data.sender);
    return;
  }
  if (!row) return;
  switch (event.type) {
    case 'provider.responded':
      row.input_tokens += event.data.usage?.input_tokens ?? 0;
      row.output_tokens += event.data.usage?.output_tokens ?? 0;
      break;
    case 'turn.completed':
    case 'turn.stopped':
    case 'turn.failed':
      row.messages += 1;
      if (event.at >= row.last_at) {
        row.last_at = event.at;
        row.last_text = event.data.reply;
      }
      break;
    default:
      break;
  }
}

/**
 * Every session of the log, folded once and then kept current by reading only what was appended since:
 * the dashboard asks often, and the log only grows. A new log (the gateway restarted) is folded afresh.
 */
export class SessionIndex {
  private log: EventLog | undefined;
  private through = 0;
  private rows: Rows = new Map();
  private senders: Senders = new Map();

  /** The sessions, most recently active first. */
  list(log: EventLog): SessionRow[] {
    this.catchUp(log);
    return [...this.rows.values()].sort((a, b) => b.last_at - a.last_at);
  }

  get(log: EventLog, session: string): SessionRow | undefined {
    this.catchUp(log);
    return this.rows.get(session);
  }

  private catchUp(log: EventLog): void {
    if (log !== this.log) {
      this.log = log;
      this.through = 0;
      this.rows = new Map();
      this.senders = new Map();
    }
    const upTo = log.lastCommittedSeq();
    if (upTo <= this.through) return;
    // turn.started first: the other types add to the rows it opens, whatever their order in the log.
    for (const type of TYPES) for (const event of log.iterate({ type, after: this.through, before: upTo + 1 })) fold(this.rows, this.senders, event);
    this.through = upTo;
  }
}
