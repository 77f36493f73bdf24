import { setTimeout as sleep } from 'node:timers/promises';
import type { Envelope } from '../../bus/index.js';
import type { EventLog, LogQuery } from './event-log.js';

export interface FollowOptions {
  signal?: AbortSignal;
  /** How often to look for events committed by another process. */
  intervalMs?: number;
}

/**
 * Events matching `query` with `seq` above `query.after`, as they are committed — by this process or by
 * another one writing the same log (the reader's snapshot is refreshed before every look).
 */
export async function* follow(log: EventLog, query: LogQuery, options: FollowOptions = {}): AsyncGenerator<Envelope> {
  const interval = options.intervalMs ?? 5;
  let cursor = query.after ?? 0;
  const { limit: _ignored, order: _order, ...filters } = query;
  while (!options.signal?.aborted) {
    log.refresh();
    const last = log.lastCommittedSeq();
    if (last > cursor) {
      for (const event of log.iterate({ ...filters, after: cursor, before: last + 1, order: 'asc' })) yield event;
      cursor = last;
    }
    try {
      await sleep(interval, undefined, { signal: options.signal });
    } catch {
      return;
    }
  }
}
