import type { Observable } from 'rxjs';
import { RequestAbortedError, RequestTimeoutError } from './errors.js';
import type { Envelope, EventDraft, EventType } from './events/index.js';

/** Timers of a request: the real ones, or an actor system's clock (xstate's `Clock`) that a test moves by hand. */
export interface RequestClock {
  setTimeout(run: () => void, ms: number): unknown;
  clearTimeout(timer: unknown): void;
}

const realClock: RequestClock = {
  setTimeout: (run, ms) => setTimeout(run, ms).unref(),
  clearTimeout: (timer) => clearTimeout(timer as ReturnType<typeof setTimeout>),
};

export interface RequestOptions<T extends EventType, R> {
  /**
   * The answer: the first event of a type in `on` for which `pick` returns a value settles the request with it
   * (`undefined` lets it wait). `pick` sees these events from before the draft is published, so an answer published
   * while the request is delivered is not missed.
   */
  reply: { on: readonly T[]; pick: (event: Envelope<T>) => R | undefined };
  /** The request rejects with `RequestTimeoutError` when no answer came within this long. */
  timeoutMs: number;
  /** Aborting it rejects the request with `RequestAbortedError` (its `reason` is the signal's). */
  signal?: AbortSignal;
  /** The timer of `timeoutMs` (default: real time, never keeping the process alive). */
  clock?: RequestClock;
}

/** What `request` needs of a bus: publish, and the events of some types. */
export interface RequestBus {
  publish<T extends EventType>(draft: EventDraft<T>): Envelope<T>;
  on<T extends EventType>(...types: T[]): Observable<Envelope<T>>;
}

/**
 * Publishes `draft` and resolves with the answer `reply` picks out of the events that follow: the one request and
 * answer over the bus, with a timeout and an abort, so nobody waits for an answer forever. A signal already aborted
 * publishes nothing.
 */
export function busRequest<D extends EventType, T extends EventType, R>(
  bus: RequestBus,
  draft: EventDraft<D>,
  options: RequestOptions<T, R>,
): Promise<R> {
  const { reply, timeoutMs, signal, clock = realClock } = options;
  if (signal?.aborted) return Promise.reject(new RequestAbortedError(draft.type, signal.reason));
  return new Promise<R>((resolve, reject) => {
    let settled = false;
    const settle = (end: () => void): void => {
      if (settled) return;
      settled = true;
      subscription.unsubscribe();
      clock.clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      end();
    };
    const onAbort = (): void => settle(() => reject(new RequestAbortedError(draft.type, signal?.reason)));
    const subscription = bus.on(...reply.on).subscribe((event) => {
      const answer = reply.pick(event);
      if (answer !== undefined) settle(() => resolve(answer));
    });
    const expire = (): void => settle(() => reject(new RequestTimeoutError(draft.type, timeoutMs)));
    const timer = clock.setTimeout(expire, timeoutMs);
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      bus.publish(draft);
    } catch (error) {
      settle(() => reject(error));
    }
  });
}
