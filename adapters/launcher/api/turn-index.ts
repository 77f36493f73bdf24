import type { Envelope } from '../../../bus/index.js';
import type { EventStore } from '../../../store/log/event-store.js';
import type { TurnListRow } from '../../../bus/api-shapes.js';

/** Read one exact type at a time, so each read walks the type index instead of the whole log. */
const TYPES = ['turn.started', 'turn.completed', 'turn.stopped', 'turn.failed', 'turn.aborted'] as const;

const OUTCOMES: Record<string, TurnListRow['outcome']> = {
  'turn.completed': 'completed',
  'turn.stopped': 'stopped',
  'turn.failed': 'failed',
  'turn.aborted': 'aborted',
};

export type TurnPage = { total: number; turns: TurnListRow[] };

/**
 * Every turn of the log, folded once and then kept current by reading only what was appended since, as the machines
 * page's list of finished turns pages through them: a log of thousands of turns is never sent whole.
 */
export class TurnIndex {
  private log: EventStore | undefined;
  private through = 0;
  private rows = new Map<string, TurnListRow>();

  /** Newest first: the turns whose message, id, channel or chat holds `q`, `finished` ones only when asked. */
  page(log: EventStore, query: { q?: string; finished?: boolean; offset: number; limit: number }): TurnPage {
    this.catchUp(log);
    const q = query.q?.trim().toLowerCase();
    const matching = [...this.rows.values()]
      .filter((row) => !query.finished || row.outcome !== 'running')
      .filter((row) => !q || [row.text, row.turn, row.channel, row.chat].join(' ').toLowerCase().includes(q))
      .sort((a, b) => b.at - a.at);
    return { total: matching.length, turns: matching.slice(query.offset, query.offset + query.limit) };
  }

  private fold(event: Envelope): void {
    const turn = event.turn;
    if (!turn) return;
    if (event.type === 'turn.started') {
      this.rows.set(turn, {
        turn,
        session: event.session ?? '',
        agent: event.agent ?? '',
        channel: event.data.channel,
        chat: event.data.chat,
        text: event.data.text,
        at: event.at,
        outcome: 'running',
      });
      return;
    }
    const row = this.rows.get(turn);
    const outcome = OUTCOMES[event.type];
    if (!row || !outcome) return;
    row.outcome = outcome;
    row.ms = event.at - row.at;
  }

  private catchUp(log: EventStore): void {
    if (log !== this.log) {
      this.log = log;
      this.through = 0;
      this.rows = new Map();
    }
    const upTo = log.lastCommittedSeq();
    if (upTo <= this.through) return;
    // turn.started first: the endings complete the rows it opens, whatever their order in the log.
    for (const type of TYPES)
      for (const event of log.iterate({ type, after: this.through, before: upTo + 1 })) this.fold(event);
    this.through = upTo;
  }
}
