// Given events → when an event → then events: the shape of actor tests. An actor under test runs on a bus over an
// in-memory log holding the given events; a test publishes what happens and reads back what the actor published.
import { InProcessBus, validateDraft, type Envelope, type EventDraft, type EventType } from '../../bus/index.js';
import { MemoryEventStore } from '../../store/log/memory-event-store.js';

export interface Stage {
  log: MemoryEventStore;
  bus: InProcessBus;
  /** Every event published on the bus since the stage was set (the given events are not among them). */
  published: Envelope[];
  /** Publishes an event, as another actor or a channel would. */
  when<T extends EventType>(draft: EventDraft<T>): Envelope<T>;
  /** The published events of these types (all but `actor.*` by default), as `[type, data]`, in order. */
  then(...types: EventType[]): Array<[string, unknown]>;
}

export function given(drafts: EventDraft[] = []): Stage {
  const log = new MemoryEventStore();
  for (const draft of drafts) log.append(validateDraft(draft));
  const bus = new InProcessBus(log);
  const published: Envelope[] = [];
  bus.events$.subscribe((e) => published.push(e));
  return {
    log,
    bus,
    published,
    when: (draft) => bus.publish(draft),
    then: (...types) => {
      const wanted = new Set<string>(types);
      return published
        .filter((e) => (types.length > 0 ? wanted.has(e.type) : !e.type.startsWith('actor.')))
        .map((e) => [e.type, e.data]);
    },
  };
}

/** The moves of one board actor published so far, as `from->to cause`. */
export function movesOf(published: Envelope[], actor: string): string[] {
  return published.flatMap((e) =>
    e.type === 'actor.transitioned' && e.data.actor === actor
      ? [`${e.data.from ?? ''}->${e.data.to} ${e.data.event}`]
      : [],
  );
}
