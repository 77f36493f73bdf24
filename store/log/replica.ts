import type { Envelope } from '../../bus/index.js';
import { queryFilter, type LogQuery } from './event-store.js';

/** The first index in an ascending list whose value is greater than `seq`. */
function firstAbove(list: readonly number[], seq: number): number {
  let low = 0;
  let high = list.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (list[mid]! <= seq) low = mid + 1;
    else high = mid;
  }
  return low;
}

function post(postings: Map<string, number[]>, id: string | undefined, seq: number): void {
  if (!id) return;
  const list = postings.get(id);
  if (list) list.push(seq);
  else postings.set(id, [seq]);
}

/**
 * A log's events in memory, in `seq` order, with postings by session, turn and type: the synchronous read side of a
 * log whose truth lives elsewhere (a JetStream stream). Events arrive in order; `seq` may start above 1.
 */
export class EventReplica {
  private readonly events: Envelope[] = [];
  private first = 1;
  private readonly bySession = new Map<string, number[]>();
  private readonly byTurn = new Map<string, number[]>();
  private readonly byType = new Map<string, number[]>();

  get lastSeq(): number {
    return this.first + this.events.length - 1;
  }

  /** Adds the next event; one at or below the last seq is already here and ignored. */
  add(event: Envelope): boolean {
    if (this.events.length === 0) this.first = event.seq;
    else if (event.seq <= this.lastSeq) return false;
    else if (event.seq !== this.lastSeq + 1)
      throw new RangeError(`the log skipped from seq ${this.lastSeq} to ${event.seq}`);
    this.events.push(event);
    post(this.bySession, event.session, event.seq);
    post(this.byTurn, event.turn, event.seq);
    post(this.byType, event.type, event.seq);
    return true;
  }

  sessionIds(prefix: string): string[] {
    return [...this.bySession.keys()].filter((id) => id.startsWith(prefix)).sort();
  }

  get(seq: number): Envelope | undefined {
    return seq >= this.first ? this.events[seq - this.first] : undefined;
  }

  *iterate(query: LogQuery = {}): Generator<Envelope> {
    const limit = query.limit ?? Infinity;
    if (limit <= 0) return;
    const keep = queryFilter(query);
    let count = 0;
    for (const seq of this.candidates(query)) {
      const event = this.get(seq)!;
      if (!keep(event)) continue;
      yield event;
      if (++count >= limit) return;
    }
  }

  private *candidates(query: LogQuery): Generator<number> {
    const low = Math.max(query.after ?? 0, this.first - 1);
    const high = Math.min(query.before ?? Infinity, this.lastSeq + 1);
    if (low + 1 >= high) return;
    const desc = query.order === 'desc';
    const exactType = query.type && /^[a-z_.]+$/.test(query.type) ? query.type : undefined;
    const postings = query.turn
      ? this.byTurn.get(query.turn)
      : query.session
        ? this.bySession.get(query.session)
        : exactType
          ? this.byType.get(exactType)
          : undefined;
    if (!postings) {
      if (query.turn ?? query.session ?? exactType) return;
      for (let seq = desc ? high - 1 : low + 1; desc ? seq > low : seq < high; seq += desc ? -1 : 1) yield seq;
      return;
    }
    const from = firstAbove(postings, low);
    const to = firstAbove(postings, high - 1);
    if (desc) for (let i = to - 1; i >= from; i--) yield postings[i]!;
    else for (let i = from; i < to; i++) yield postings[i]!;
  }
}
