// Waiting for a system to go quiet, for tests that check that something did NOT happen (no second reply, no event
// after the last one expected). A fixed sleep before such a check passes whenever the machine is slow; these wait
// until what the test reads has stopped changing, so a slow machine makes them wait longer, not pass blindly.
import { isDeepStrictEqual } from 'node:util';
import * as assert from 'uvu/assert';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Bus, Envelope } from '../../bus/index.js';
import type { LogQuery } from '../../store/log/event-store.js';
import { EventLog } from '../../store/log/event-log.js';

export interface QuietOptions {
  /** How long what is read must stay the same. */
  quietMs?: number;
  /** Fails when it is still changing after this long. */
  limitMs?: number;
}

const tick = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Reads `read()` until it gave the same value for `quietMs` in a row, and returns that value for the test to assert.
 * For state outside this process (a gateway process's log, an emulator's chats): include everything that moves while
 * the system works (such as the number of events in its log), so a busy system is never taken for a quiet one.
 */
export async function quietValue<T>(read: () => T | Promise<T>, options: QuietOptions = {}): Promise<T> {
  const { quietMs = 500, limitMs = 30_000 } = options;
  const end = Date.now() + limitMs;
  let value = await read();
  let since = Date.now();
  for (;;) {
    await tick(Math.min(50, quietMs / 4));
    const next = await read();
    if (!isDeepStrictEqual(next, value)) {
      value = next;
      since = Date.now();
    } else if (Date.now() - since >= quietMs) return value;
    if (Date.now() > end) throw new Error(`still changing after ${limitMs} ms: ${JSON.stringify(value).slice(0, 500)}`);
  }
}

/** The last seq in the event log under `sessions` (0 before it exists), read from beside the process writing it. */
export function loggedSeq(sessions: string): number {
  if (!existsSync(sessions)) return 0;
  try {
    const log = EventLog.open(sessions, { readOnly: true });
    try {
      return log.lastCommittedSeq();
    } finally {
      log.close();
    }
  } catch {
    // The log is being created.
    return 0;
  }
}

/**
 * The event log under `sessions`, read again and again from beside the process writing it: `seq()` is its last seq,
 * `read()` its events (0 and none before the log exists). The log stays open between reads, since opening lmdb is
 * what a read costs (a wait reads every 20 to 50 ms), and is opened anew when its file was replaced (a compaction).
 */
export function logWatch(sessions: string): {
  seq(): number;
  read(query?: LogQuery): Envelope[];
  close(): void;
} {
  let log: EventLog | undefined;
  let opened: number | undefined;
  const close = (): void => {
    log?.close();
    log = undefined;
  };
  /** What `reading` reads from the log as it is now; `none` while there is no whole log to read. */
  const now = <T>(reading: (open: EventLog) => T, none: T): T => {
    let inode: number;
    try {
      inode = statSync(join(sessions, 'data.mdb')).ino;
    } catch {
      return none;
    }
    if (inode !== opened) close();
    try {
      if (log) log.refresh();
      else [log, opened] = [EventLog.open(sessions, { readOnly: true }), inode];
      return reading(log);
    } catch {
      // The log is being created.
      close();
      return none;
    }
  };
  return {
    seq: () => now((open) => open.lastCommittedSeq(), 0),
    read: (query = {}) => now((open) => open.read(query), []),
    close,
  };
}

/**
 * What `read()` gives once a gateway process, whose log is under `sessions`, has stopped working: neither `read()`
 * nor its log changed for `quietMs`. For checks that no further message came.
 */
export async function quietGateway<T>(sessions: string, read: () => T, options: QuietOptions = {}): Promise<T> {
  const watch = logWatch(sessions);
  try {
    const { value } = await quietValue(() => ({ value: read(), seq: watch.seq() }), options);
    return value;
  } finally {
    watch.close();
  }
}

/** Resolves once `bus` has published nothing for `quietMs`; fails when it is still busy after `limitMs`. */
export function busQuiet(bus: Bus, options: QuietOptions = {}): Promise<void> {
  const { quietMs = 200, limitMs = 30_000 } = options;
  return new Promise((resolve, reject) => {
    let timer = setTimeout(done, quietMs);
    const limit = setTimeout(() => {
      subscription.unsubscribe();
      clearTimeout(timer);
      reject(new Error(`the bus was still busy after ${limitMs} ms`));
    }, limitMs);
    const subscription = bus.events$.subscribe(() => {
      clearTimeout(timer);
      timer = setTimeout(done, quietMs);
    });
    function done(): void {
      subscription.unsubscribe();
      clearTimeout(limit);
      resolve();
    }
  });
}

/**
 * Then-nothing-happened, given/when/then style: waits for the bus to go quiet, then fails naming every event that
 * `events` (a list a subscriber of `bus` fills) got after index `from` and that `unwanted` picks (every one, absent).
 */
export async function thenNothingHappened(
  bus: Bus,
  events: readonly Envelope[],
  from: number,
  unwanted: (event: Envelope) => boolean = () => true,
  options: QuietOptions = {},
): Promise<void> {
  await busQuiet(bus, options);
  const happened = events.slice(from).filter(unwanted);
  assert.equal(
    happened.map((e) => `${e.type} ${JSON.stringify(e.data)}`),
    [],
    'nothing more happened',
  );
}
