import type { Envelope, ValidDraft } from '../../bus/index.js';
import { stampDraft, stampInPlace } from '../../bus/index.js';
import { LogError } from './errors.js';
import { queryFilter, type EventStore, type LogQuery } from './event-store.js';

/**
 * The event log in memory: what actor tests give and read back, and the proof that the runtime depends on the
 * `EventStore` contract rather than on lmdb. Appends commit at once.
 */
export class MemoryEventStore implements EventStore {
  readonly readOnly = false;
  private readonly events: Envelope[] = [];
  private closed = false;

  constructor(private readonly now: () => number = Date.now) {}

  get lastSeq(): number {
    return this.events.length;
  }

  stamp(draft: ValidDraft): Envelope {
    return this.add(stampInPlace(draft, this.events.length + 1, draft.at ?? this.now()));
  }

  append(draft: ValidDraft): Envelope {
    return this.add(stampDraft(draft, this.events.length + 1, draft.at ?? this.now()));
  }

  private add(envelope: Envelope): Envelope {
    if (this.closed) throw new LogError('log_closed', 'the event log is closed');
    this.events.push(envelope);
    return envelope;
  }

  async committed(): Promise<void> {}

  async flushed(): Promise<void> {}

  get(seq: number): Envelope | undefined {
    return this.events[seq - 1];
  }

  read(query: LogQuery = {}): Envelope[] {
    return [...this.iterate(query)];
  }

  *iterate(query: LogQuery = {}): Generator<Envelope> {
    const limit = query.limit ?? Infinity;
    if (limit <= 0) return;
    const keep = queryFilter(query);
    const low = Math.max(0, query.after ?? 0);
    const high = Math.min(query.before ?? Infinity, this.events.length + 1);
    const desc = query.order === 'desc';
    let count = 0;
    for (let seq = desc ? high - 1 : low + 1; desc ? seq > low : seq < high; seq += desc ? -1 : 1) {
      const event = this.events[seq - 1]!;
      if (!keep(event)) continue;
      yield event;
      if (++count >= limit) return;
    }
  }

  lastCommittedSeq(): number {
    return this.events.length;
  }

  sessionIds(prefix = 'sk_v1_'): string[] {
    return [
      ...new Set(this.events.map((e) => e.session).filter((id): id is string => id?.startsWith(prefix) === true)),
    ].sort();
  }

  refresh(): void {}

  close(): void {
    this.closed = true;
  }
}
