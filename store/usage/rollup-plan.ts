import type { Envelope } from '../../bus/index.js';
import type { EventStore } from '../log/event-store.js';
import { rolledRecords, type RolledUp, UsageRollup } from './rollup.js';
import { UsageFold, usageEvents } from './usage-log.js';

/** What a compaction does with usage: the answers it folds into one rollup event (with the rollups there were). */
export interface RollupPlan {
  /** The seqs of the folded answers (and of their requests) and of the rollups merged. */
  covered: Set<number>;
  /** The merged rollup, at the last seq it covers; undefined when there is nothing to roll up. */
  event: Envelope | undefined;
}

const callOf = (event: Envelope): string => `${event.turn ?? ''}#${(event.data as { iteration?: number }).iteration}`;

/**
 * Folds the answers `isOld` says go (and the request of each) with the log's rollups into one rollup. A request whose
 * answer stays, stays: the answer needs it to name its model.
 */
export function planRollup(log: EventStore, isOld: (event: Envelope) => boolean, now: number): RollupPlan {
  const rollup = new UsageRollup();
  const covered = new Set<number>();
  let { through, at } = loadRollups(log, rollup, covered);
  const fold = new UsageFold();
  const asked = new Map<string, { seq: number; old: boolean }>();
  for (const event of usageEvents(log, {})) {
    const record = fold.apply(event);
    if (event.type === 'provider.requested') {
      asked.set(callOf(event), { seq: event.seq, old: isOld(event) });
      continue;
    }
    const request = asked.get(callOf(event));
    asked.delete(callOf(event));
    if (!record || !isOld(event)) continue;
    rollup.add(record);
    covered.add(event.seq);
    if (request) covered.add(request.seq);
    through = Math.max(through, event.seq);
    at = Math.max(at, event.seq);
  }
  for (const request of asked.values()) if (request.old) covered.add(request.seq);
  const event =
    rollup.size === 0
      ? undefined
      : ({ seq: at, at: now, type: 'usage.rolled_up', data: rollup.data(through) } as Envelope);
  return { covered, event };
}

/**
 * The log's rollups less the answers an import brings back (`answers`: the archive's events not in the log): a rollup
 * stands only for answers the log no longer holds.
 */
export function planUnroll(log: EventStore, answers: Iterable<Envelope>, now: number): RollupPlan {
  const rollup = new UsageRollup();
  const covered = new Set<number>();
  const { through, at } = loadRollups(log, rollup, covered);
  if (covered.size === 0) return { covered, event: undefined };
  const fold = new UsageFold();
  for (const event of answers) {
    const record = fold.apply(event);
    if (record && event.seq <= through) rollup.add(record, -1);
  }
  const data = rollup.data(through);
  // Every answer back in the log: no rollup stands for any.
  if (data.buckets.length === 0) return { covered, event: undefined };
  return { covered, event: { seq: at, at: now, type: 'usage.rolled_up', data } as Envelope };
}

/** The log's rollups added to `rollup`, their seqs to `covered`; the last seq they folded and the last of theirs. */
function loadRollups(log: EventStore, rollup: UsageRollup, covered: Set<number>): { through: number; at: number } {
  let through = 0;
  let at = 0;
  for (const event of log.iterate({ type: 'usage.rolled_up' })) {
    const data = event.data as RolledUp;
    for (const record of rolledRecords(event.seq, data)) rollup.add(record);
    covered.add(event.seq);
    through = Math.max(through, data.through);
    at = Math.max(at, event.seq);
  }
  return { through, at };
}
