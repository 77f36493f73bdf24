import { filter, Subject, type Observable } from 'rxjs';
import type { Correlation } from './envelope.js';
import type { Envelope, EventDraft, EventType, ValidDraft } from './events/index.js';
import { stampInPlace } from './stamp.js';
import { typeMatcher } from './type-glob.js';
import { acceptDraft } from './validate.js';

/** Assigns `seq` and `at`. The event log is the sequencer of a running gateway, so bus order is log order. */
export interface Sequencer {
  /** Stamps the bus's own copy of a draft in place (no one else holds it) and returns it as the envelope. */
  stamp(draft: ValidDraft): Envelope;
}

/** A sequencer for processes without a log (tests, one-off tools): numbering in memory only. */
export function memorySequencer(now: () => number = Date.now): Sequencer {
  let seq = 0;
  return { stamp: (draft) => stampInPlace(draft, ++seq, draft.at ?? now()) };
}

export interface BusOptions {
  /**
   * Applied to the data of every event before it is sequenced, so what it removes never reaches a subscriber,
   * the log, `tern log` or the dashboard (the runtime masks secrets here). It returns the data unchanged, or a
   * copy: the publisher's objects are never modified.
   */
  redact?: <D>(data: D) => D;
}

/**
 * The one in-process bus. Every subscriber sees every event in `seq` order, even when a subscriber
 * publishes while it is being notified: such events are queued and delivered after the current one.
 */
export class Bus {
  private readonly subject = new Subject<Envelope>();
  private readonly queue: Envelope[] = [];
  private delivering = false;
  readonly events$: Observable<Envelope> = this.subject.asObservable();

  constructor(private sequencer: Sequencer = memorySequencer(), private readonly options: BusOptions = {}) {}

  publish<T extends EventType>(draft: EventDraft<T>): Envelope<T> {
    const accepted = acceptDraft(draft);
    if (this.options.redact) accepted.data = this.options.redact(accepted.data);
    const envelope = this.sequencer.stamp(accepted) as Envelope<T>;
    this.queue.push(envelope);
    if (!this.delivering) this.drain();
    return envelope;
  }

  on<T extends EventType>(...types: T[]): Observable<Envelope<T>> {
    const wanted = new Set<string>(types);
    return this.events$.pipe(filter((e): e is Envelope<T> => wanted.has(e.type)));
  }

  matching(pattern: string): Observable<Envelope> {
    const matches = typeMatcher(pattern);
    return this.events$.pipe(filter((e) => matches(e.type)));
  }

  /** Events whose correlation keys equal every key given. */
  select(keys: Correlation): Observable<Envelope> {
    const entries = Object.entries(keys).filter(([, v]) => v !== undefined) as [keyof Correlation, string][];
    return this.events$.pipe(filter((e) => entries.every(([k, v]) => e[k] === v)));
  }

  complete(): void {
    this.subject.complete();
  }

  private drain(): void {
    this.delivering = true;
    try {
      for (let e = this.queue.shift(); e; e = this.queue.shift()) this.subject.next(e);
    } finally {
      this.delivering = false;
    }
  }
}
