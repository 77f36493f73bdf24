import { filter, merge, Observable, Subject, type Subscriber } from 'rxjs';
import type { Correlation } from './envelope.js';
import type { Envelope, EventDraft, EventType, ValidDraft } from './events/index.js';
import { LOG_OK, type LogHealth } from './log-health.js';
import { busRequest, type RequestOptions } from './request.js';
import { stampInPlace } from './stamp.js';
import { typeMatcher } from './type-glob.js';
import { acceptDraft } from './validate.js';
import { workGroupOf, type WorkGroup, type WorkType } from './work.js';

/** Assigns `seq` and `at`. The event log is the sequencer of a running gateway, so bus order is log order. */
export interface Sequencer {
  /** Stamps the bus's own copy of a draft in place (no one else holds it) and returns it as the envelope. */
  stamp(draft: ValidDraft): Envelope;
  /**
   * Resolves once everything stamped so far is in the log (absent: nothing is kept). While the log cannot write it
   * waits for it to write again; with `failFast` it rejects with `LogFailingError` instead.
   */
  committed?(options?: { failFast?: boolean }): Promise<void>;
  /** Whether the log can write now (absent: always). */
  health?(): LogHealth;
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
 * The seam between actors. Every event an actor publishes goes through here, and an actor's inputs are what it
 * reads here; no actor calls another. Two kinds of subscription:
 * - `on`, `matching`, `select`, `events$`: every subscriber sees every matching event, at once. Observers (the log
 *   view, the dashboard) and control events (`turn.stop.requested`, `gateway.stopping`) use these, so a control
 *   event never waits behind the work it cancels.
 * - `work(group)`: work that one consumer must handle exactly once (`bus/work.ts` names the groups). Work published
 *   while the group has no consumer waits for one, and work a crashed run accepted and never finished is handed to
 *   the group again on the next start (`requeue`).
 * `InProcessBus` is the implementation (rxjs over the log); a cluster member (#27) runs one per event stream.
 */
export interface Bus {
  /**
   * Accepts the draft (its type checked; parsed too under `AGENT_CHECK_EVENTS=1`), applies the redaction hook to
   * its data, stamps it (`seq`, `at`) and delivers it. Returns the envelope subscribers get.
   */
  publish<T extends EventType>(draft: EventDraft<T>): Envelope<T>;
  /** Every event, in `seq` order. */
  readonly events$: Observable<Envelope>;
  on<T extends EventType>(...types: T[]): Observable<Envelope<T>>;
  /** Events whose type matches a glob such as `provider.*`. */
  matching(pattern: string): Observable<Envelope>;
  /** Events whose correlation keys equal every key given. */
  select(keys: Correlation): Observable<Envelope>;
  /** The work of `group`, each event to this one consumer: first what waited, then new work as it is published. */
  work<G extends WorkGroup>(group: G): Observable<Envelope<WorkType<G>>>;
  /** Hands work back to its group: what a crashed run accepted and never finished (recovery, at start). */
  requeue(envelopes: Envelope[]): void;
  /**
   * Resolves once everything published so far is in the log: a crash after that loses none of it. While the log cannot
   * write (a full disk) this waits until it can; with `failFast` it rejects with `LogFailingError` instead, for callers
   * that can have the work handed to them again later (a platform that redelivers what was not acknowledged).
   */
  durable(options?: { failFast?: boolean }): Promise<void>;
  /** Whether the log can write now; while it cannot, published events wait in memory. */
  logHealth(): LogHealth;
  /**
   * Publishes `draft` and resolves with the answer `options.reply` picks from the events after it; rejects with
   * `RequestTimeoutError` after `timeoutMs`, with `RequestAbortedError` when `signal` aborts (`bus/request.ts`).
   */
  request<D extends EventType, T extends EventType, R>(draft: EventDraft<D>, options: RequestOptions<T, R>): Promise<R>;
  complete(): void;
}

/**
 * The bus of one process. Every subscriber sees every event in `seq` order, even when a subscriber publishes
 * while it is being notified: such events are queued and delivered after the current one.
 */
export class InProcessBus implements Bus {
  private readonly subject = new Subject<Envelope>();
  /**
   * One subject per event type, for `on`: a subscriber to a few types (every pending `request` is one) is handed
   * only those, where a filter on `events$` ran for every event (100 turns in flight: 100 filters per event).
   */
  private readonly typed = new Map<string, Subject<Envelope>>();
  private completed = false;
  private readonly queue: Envelope[] = [];
  private delivering = false;
  private readonly consumers = new Map<WorkGroup, Subscriber<Envelope>>();
  /** Work waiting for its group's consumer. */
  private readonly waiting = new Map<WorkGroup, Envelope[]>();
  readonly events$: Observable<Envelope> = this.subject.asObservable();

  constructor(
    private readonly sequencer: Sequencer = memorySequencer(),
    private readonly options: BusOptions = {},
  ) {}

  publish<T extends EventType>(draft: EventDraft<T>): Envelope<T> {
    const accepted = acceptDraft(draft);
    if (this.options.redact) accepted.data = this.options.redact(accepted.data);
    const envelope = this.sequencer.stamp(accepted) as Envelope<T>;
    this.queue.push(envelope);
    if (!this.delivering) this.drain();
    return envelope;
  }

  on<T extends EventType>(...types: T[]): Observable<Envelope<T>> {
    const sources = [...new Set(types)].map((type) => this.ofType(type));
    return (sources.length === 1 ? sources[0]! : merge(...sources)) as Observable<Envelope<T>>;
  }

  matching(pattern: string): Observable<Envelope> {
    const matches = typeMatcher(pattern);
    return this.events$.pipe(filter((e) => matches(e.type)));
  }

  select(keys: Correlation): Observable<Envelope> {
    const entries = Object.entries(keys).filter(([, v]) => v !== undefined) as [keyof Correlation, string][];
    return this.events$.pipe(filter((e) => entries.every(([k, v]) => e[k] === v)));
  }

  work<G extends WorkGroup>(group: G): Observable<Envelope<WorkType<G>>> {
    return new Observable<Envelope<WorkType<G>>>((subscriber) => {
      if (this.consumers.has(group)) {
        subscriber.error(new Error(`the work group ${group} already has a consumer in this process`));
        return undefined;
      }
      const consumer = subscriber as Subscriber<Envelope>;
      this.consumers.set(group, consumer);
      const waited = this.waiting.get(group) ?? [];
      this.waiting.delete(group);
      for (const envelope of waited) {
        if (this.consumers.get(group) !== consumer) break;
        consumer.next(envelope);
      }
      return () => {
        if (this.consumers.get(group) === consumer) this.consumers.delete(group);
      };
    });
  }

  requeue(envelopes: Envelope[]): void {
    for (const envelope of envelopes) this.toWork(envelope);
  }

  durable(options?: { failFast?: boolean }): Promise<void> {
    return this.sequencer.committed?.(options) ?? Promise.resolve();
  }

  logHealth(): LogHealth {
    return this.sequencer.health?.() ?? LOG_OK;
  }

  request<D extends EventType, T extends EventType, R>(
    draft: EventDraft<D>,
    options: RequestOptions<T, R>,
  ): Promise<R> {
    return busRequest(this, draft, options);
  }

  complete(): void {
    this.completed = true;
    this.subject.complete();
    for (const subject of this.typed.values()) subject.complete();
    for (const consumer of this.consumers.values()) consumer.complete();
    this.consumers.clear();
  }

  private ofType(type: string): Observable<Envelope> {
    let subject = this.typed.get(type);
    if (!subject) {
      subject = new Subject<Envelope>();
      if (this.completed) subject.complete();
      this.typed.set(type, subject);
    }
    return subject.asObservable();
  }

  private toWork(envelope: Envelope): void {
    const group = workGroupOf(envelope);
    if (!group) return;
    const consumer = this.consumers.get(group);
    if (consumer) return consumer.next(envelope);
    const waiting = this.waiting.get(group);
    if (waiting) waiting.push(envelope);
    else this.waiting.set(group, [envelope]);
  }

  private drain(): void {
    this.delivering = true;
    try {
      for (let e = this.queue.shift(); e; e = this.queue.shift()) {
        this.subject.next(e);
        this.typed.get(e.type)?.next(e);
        this.toWork(e);
      }
    } finally {
      this.delivering = false;
    }
  }
}
