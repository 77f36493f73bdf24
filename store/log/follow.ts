import { setTimeout as sleep } from 'node:timers/promises';
import type { Envelope } from '../../bus/index.js';
import type { EventStore, LogQuery } from './event-store.js';

export interface FollowOptions {
  signal?: AbortSignal;
  /** The longest wait between two looks for events committed by another process. */
  intervalMs?: number;
}

const FIRST_WAIT_MS = 2;

/**
 * Events matching `query` with `seq` above `query.after`, as they are committed — by this process or by
 * another one writing the same log (the reader's snapshot is refreshed before every look).
 */
export async function* follow(log: EventStore, query: LogQuery, options: FollowOptions = {}): AsyncGenerator<Envelope> {
  const longest = options.intervalMs ?? 20;
  // Looks come quickly while events flow and slow down to `longest` when the log is quiet, so an idle
  // follower costs almost nothing and a busy one lags by a few milliseconds.
  let wait = FIRST_WAIT_MS;
  let cursor = query.after ?? 0;
  const { limit: _ignored, order: _order, ...filters } = query;
  while (!options.signal?.aborted) {
    log.refresh();
    const last = log.lastCommittedSeq();
    if (last > cursor) {
      for (const event of log.iterate({ ...filters, after: cursor, before: last + 1, order: 'asc' })) yield event;
      cursor = last;
      wait = FIRST_WAIT_MS;
    } else {
      wait = Math.min(longest, wait * 2);
    }
    try {
      await sleep(wait, undefined, { signal: options.signal });
    } catch {
      return;
    }
  }
}
