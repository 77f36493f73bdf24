// Apart from the compaction itself, which a gateway loads only when its compaction is due.
import type { EventLog } from './event-log.js';

/** When the log was last compacted (its latest `log.compacted`), else when its first event was written. */
export function lastCompactedAt(log: EventLog): number | undefined {
  const [last] = log.iterate({ type: 'log.compacted', order: 'desc', limit: 1 });
  const [first] = last ? [last] : log.iterate({ limit: 1 });
  return first?.at;
}
