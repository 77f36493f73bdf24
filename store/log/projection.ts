import type { Subscription } from 'rxjs';
import { typeMatcher, type Bus, type Envelope } from '../../bus/index.js';
import type { EventStore, LogQuery } from './event-store.js';

/** A fold over events: the state a view needs, rebuilt from the log and kept current from the bus. */
export interface Projection<S> {
  initial(): S;
  apply(state: S, event: Envelope): S;
  /** Limits the events folded (type glob, session, turn). */
  query?: Pick<LogQuery, 'type' | 'session' | 'turn'>;
}

export interface LiveProjection<S> {
  readonly state: S;
  /** The last `seq` folded in. */
  readonly position: number;
  stop(): void;
}

function matches(query: Projection<unknown>['query'], event: Envelope, typeOk: (t: string) => boolean): boolean {
  return (
    typeOk(event.type) &&
    (!query?.session || event.session === query.session) &&
    (!query?.turn || event.turn === query.turn)
  );
}

/**
 * Folds the log, then the bus. The bus is subscribed first and buffered, and the log is read only after
 * every append so far is committed, so no event is missed between the two or folded twice (by `seq`).
 */
export async function startProjection<S>(
  log: EventStore,
  bus: Bus,
  projection: Projection<S>,
): Promise<LiveProjection<S>> {
  const typeOk = projection.query?.type ? typeMatcher(projection.query.type) : () => true;
  let state = projection.initial();
  let position = 0;
  let buffer: Envelope[] | undefined = [];
  const fold = (event: Envelope) => {
    if (event.seq <= position) return;
    position = event.seq;
    if (matches(projection.query, event, typeOk)) state = projection.apply(state, event);
  };
  const subscription: Subscription = bus.events$.subscribe((event) => (buffer ? buffer.push(event) : fold(event)));
  await log.committed();
  for (const event of log.iterate({ ...projection.query, order: 'asc' })) fold(event);
  position = Math.max(position, log.lastCommittedSeq());
  const pending = buffer;
  buffer = undefined;
  pending.forEach(fold);
  return {
    get state() {
      return state;
    },
    get position() {
      return position;
    },
    stop: () => subscription.unsubscribe(),
  };
}
