import type { Subscription } from 'rxjs';
import type { Bus } from '../../bus/index.js';
import type { HookLog, HookSet } from './hook-set.js';

/**
 * Every bus event, handed to each hook that observes its type, in the hooks' order. An observer that fails or is
 * late is logged once when that starts and once when it is back, never per event: a stalled observer would
 * otherwise write a line per streamed chunk.
 */
export function observeBus(bus: Bus, set: HookSet, log: HookLog): Subscription {
  const failing = new Set<string>();
  const failed =
    (name: string, type: string) =>
    (error: unknown): void => {
      if (failing.has(name)) return;
      failing.add(name);
      log('warn', 'observer hook missed events', {
        hook: name,
        event: type,
        reason: (error as Error)?.message ?? String(error),
      });
    };
  const delivered = (name: string) => (): void => {
    if (failing.delete(name)) log('info', 'observer hook receives events again', { hook: name });
  };
  return bus.events$.subscribe((event) => {
    const timeout = set.timeouts().observer_timeout_ms;
    for (const hook of set.all()) {
      if (!hook.observes(event.type)) continue;
      try {
        hook.observe(event, timeout).then(delivered(hook.name), failed(hook.name, event.type));
      } catch (error) {
        failed(hook.name, event.type)(error);
      }
    }
  });
}
