import type { Envelope } from '../../../bus/index.js';
import type { EventStore } from '../../../store/log/event-store.js';
import type { PriceOf } from '../../../store/usage/prices.js';
import { ModelTally, readUsage, UsageFold } from '../../../store/usage/usage-log.js';
import type { SessionRow } from '../../../bus/api-shapes.js';

/**
 * Read one exact type at a time, so each read walks the type index instead of the whole log. The sender is on
 * `message.routed` (a channel's `message.received` names no session since #21; logs before it routed there).
 */
const TYPES = [
  'turn.started',
  'message.received',
  'message.routed',
  'turn.completed',
  'turn.stopped',
  'turn.failed',
] as const;

/** A session's row without its tokens and cost, which are priced when asked for. */
type Folded = Omit<
  SessionRow,
  | 'model_calls'
  | 'input_tokens'
  | 'cached_input_tokens'
  | 'output_tokens'
  | 'cost_usd'
  | 'unpriced_calls'
  | 'unreported_calls'
>;
type Rows = Map<string, Folded>;
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
 * the dashboard asks often, and the log only grows. A new log (the gateway restarted) is folded afresh. Each
 * session's answers are tallied by model (the usage projection `tern usage` reads) and priced per request.
 */
export class SessionIndex {
  private log: EventStore | undefined;
  private through = 0;
  private rows: Rows = new Map();
  private senders: Senders = new Map();
  private usage = new Map<string, ModelTally>();
  private usageFold = new UsageFold();

  /** The sessions, most recently active first. */
  list(log: EventStore, priceOf: PriceOf): SessionRow[] {
    this.catchUp(log);
    return [...this.rows.values()].sort((a, b) => b.last_at - a.last_at).map((row) => this.withUsage(row, priceOf));
  }

  get(log: EventStore, session: string, priceOf: PriceOf): SessionRow | undefined {
    this.catchUp(log);
    const row = this.rows.get(session);
    return row && this.withUsage(row, priceOf);
  }

  /** The readable key of a session (`v=1|agent=main|…`). */
  sessionKey(log: EventStore, session: string): string | undefined {
    this.catchUp(log);
    return this.rows.get(session)?.session_key;
  }

  /** The session of one chat of one channel kind, most recently active first. */
  sessionOfChat(log: EventStore, channel: string, chat: string): string | undefined {
    this.catchUp(log);
    let found: Folded | undefined;
    for (const row of this.rows.values())
      if (row.channel === channel && row.chat === chat && row.last_at >= (found?.last_at ?? -Infinity)) found = row;
    return found?.session;
  }

  private withUsage(row: Folded, priceOf: PriceOf): SessionRow {
    const usage = this.usage.get(row.session)?.priced(priceOf);
    return {
      ...row,
      model_calls: usage?.calls ?? 0,
      input_tokens: usage?.tokens.input ?? 0,
      cached_input_tokens: usage?.tokens.cached ?? 0,
      output_tokens: usage?.tokens.output ?? 0,
      cost_usd: usage?.cost_usd ?? 0,
      unpriced_calls: usage?.unpriced_calls ?? 0,
      unreported_calls: usage?.unreported_calls ?? 0,
    };
  }

  private catchUp(log: EventStore): void {
    // A compaction (the gateway runs them) may fold answers read already into a rollup: fold afresh after one.
    const compacted = this.through > 0 && [...log.iterate({ type: 'log.compacted', after: this.through, limit: 1 })];
    if (log !== this.log || (compacted && compacted.length > 0)) {
      this.log = log;
      this.through = 0;
      this.rows = new Map();
      this.senders = new Map();
      this.usage = new Map();
      this.usageFold = new UsageFold();
    }
    const upTo = log.lastCommittedSeq();
    if (upTo <= this.through) return;
    // turn.started first: the other types add to the rows it opens, whatever their order in the log.
    for (const type of TYPES)
      for (const event of log.iterate({ type, after: this.through, before: upTo + 1 }))
        fold(this.rows, this.senders, event);
    for (const record of readUsage(log, { after: this.through, through: upTo }, this.usageFold)) {
      const tally = this.usage.get(record.session) ?? new ModelTally();
      tally.add(record);
      this.usage.set(record.session, tally);
    }
    this.through = upTo;
  }
}
