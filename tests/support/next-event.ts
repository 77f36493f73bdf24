import type { Bus, Envelope } from '../../bus/index.js';

/**
 * The first event `match` picks: from `events` (a list a subscriber of `bus` fills) past index `from` if one is
 * there already, else the next one `bus` publishes. Fails naming `what` after `limitMs`.
 */
export function nextEvent<E extends Envelope = Envelope>(
  bus: Bus,
  events: readonly Envelope[],
  what: string,
  match: (event: Envelope) => event is E,
  options?: { from?: number; limitMs?: number },
): Promise<E>;
export function nextEvent(
  bus: Bus,
  events: readonly Envelope[],
  what: string,
  match: (event: Envelope) => boolean,
  options?: { from?: number; limitMs?: number },
): Promise<Envelope>;
export function nextEvent(
  bus: Bus,
  events: readonly Envelope[],
  what: string,
  match: (event: Envelope) => boolean,
  { from = 0, limitMs = 10_000 }: { from?: number; limitMs?: number } = {},
): Promise<Envelope> {
  const there = events.slice(from).find(match);
  if (there) return Promise.resolve(there);
  return new Promise((resolve, reject) => {
    const limit = setTimeout(() => {
      subscription.unsubscribe();
      reject(new Error(`no ${what} within ${limitMs} ms`));
    }, limitMs);
    const subscription = bus.events$.subscribe((event) => {
      if (!match(event)) return;
      clearTimeout(limit);
      subscription.unsubscribe();
      resolve(event);
    });
  });
}
