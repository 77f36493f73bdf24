import type { Envelope, HookDecision } from '../../bus/index.js';
import type { Decider, DecisionSource } from './turn-hooks.js';

const keyOf = (point: string, key: { call_id?: string; iteration?: number }): string =>
  `${point}\u0000${key.call_id ?? ''}\u0000${key.iteration ?? ''}`;

/**
 * The decisions a recorded turn took, answered from its `hook.decided` events instead of asking the hooks (or the
 * user) again: each point of each call gets the deciders it had, in the order they decided.
 */
export function recordedDecisions(events: readonly Envelope[]): DecisionSource {
  const byPoint = new Map<string, Array<Envelope<'hook.decided'>>>();
  for (const event of events) {
    if (event.type !== 'hook.decided') continue;
    const key = keyOf(event.data.point, event.data);
    byPoint.set(key, [...(byPoint.get(key) ?? []), event]);
  }
  return {
    deciders(point, key): Decider[] {
      return (byPoint.get(keyOf(point, key)) ?? []).map(({ data }) => {
        const { hook, point: _point, call_id: _call, iteration: _iteration, ...decision } = data;
        return { hook, decide: async (): Promise<HookDecision> => decision };
      });
    },
  };
}
