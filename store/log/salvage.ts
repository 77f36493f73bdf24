import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Envelope } from '../../bus/index.js';
import { LogError } from './errors.js';
import { EventLog } from './event-log.js';
import { readLog, ranges, treeBlobs, treeEvents, type LogCheck } from './log-check.js';
import { acquireWriterLock } from './writer-lock.js';

const FILES = ['data.mdb', 'lock.mdb'] as const;

/** The writer lock of a log that is there: without one, there is nothing to check (and no folder to lock in). */
function lockExisting(dir: string): () => void {
  if (!existsSync(join(dir, 'data.mdb'))) throw new LogError('log_missing', `no event log in ${dir}`);
  return acquireWriterLock(dir);
}

export interface Salvaged {
  /** Events copied into the new log. */
  saved: number;
  /** Seqs the damaged log could not give back, each a `log.lost` event in the new log. */
  lost: number;
  /** Those seqs as ranges (`1012–1022`), empty when none. */
  lostSeqs: string;
  /** The folder the damaged log was moved to. */
  kept: string;
  check: LogCheck;
}

/**
 * Checks a log (`readLog`) while holding its writer lock, so no gateway writes it meanwhile; a gateway that is writing
 * it refuses the check with `log_locked`.
 */
export function verifyLog(dir: string): LogCheck {
  const release = lockExisting(dir);
  try {
    return readLog(dir, { scan: false }).check;
  } finally {
    release();
  }
}

/**
 * Copies every event that can be read from the log in `dir` (through its tree, and from leaf pages a damaged branch
 * cut off) into a new log, each at its own seq, with `log.lost` in the place of each one that cannot; then moves the
 * damaged files into `damaged-<time>/` beside it and puts the new log in their place. Holds the writer lock
 * throughout: a running gateway refuses it (`log_locked`).
 */
export function salvageLog(dir: string, now: Date = new Date()): Salvaged {
  const release = lockExisting(dir);
  try {
    const readable = readLog(dir, { scan: true });
    const stamp = now.toISOString().replace(/[:.]/g, '-');
    const reason = `the log was damaged; \`tern log salvage\` could not read this event back (${now.toISOString()})`;
    const last = Math.max(readable.lastSeq, readable.found.highest);
    const lostSeqs: number[] = [];
    let saved = 0;
    // In seq order: the tree's events merged with those only the scan found; each seq skipped is a lost one.
    function* inOrder(): Generator<Envelope> {
      const recovered = [...readable.recovered.values()].sort((a, b) => a.seq - b.seq);
      let next = 0;
      let at = 0;
      const take = (event: Envelope): boolean => {
        if (event.seq <= at) return false;
        for (let seq = at + 1; seq < event.seq; seq++) lostSeqs.push(seq);
        at = event.seq;
        saved++;
        return true;
      };
      for (const event of treeEvents(dir)) {
        while (next < recovered.length && recovered[next]!.seq < event.seq) {
          const found = recovered[next++]!;
          if (take(found)) yield found;
        }
        if (take(event)) yield event;
      }
      for (; next < recovered.length; next++) if (take(recovered[next]!)) yield recovered[next]!;
      // Lost events after the last readable one keep their places too.
      for (let seq = at + 1; seq <= last; seq++) {
        lostSeqs.push(seq);
        yield { seq, at: now.getTime(), type: 'log.lost', data: { reason } } as Envelope;
      }
    }
    const fresh = join(dir, `.salvage-${stamp}`);
    rmSync(fresh, { recursive: true, force: true });
    const log = EventLog.open(fresh);
    try {
      // The values prompts and checkpoints name (#38) first: the events keep their keys.
      log.restoreBlobs(treeBlobs(dir));
      log.restoreBlobs(treeBlobs(dir, 'names'), 'names');
      log.restore(inOrder(), reason);
    } finally {
      log.close();
    }
    const kept = join(dir, `damaged-${stamp}`);
    mkdirSync(kept, { recursive: true, mode: 0o700 });
    for (const name of FILES) if (existsSync(join(dir, name))) renameSync(join(dir, name), join(kept, name));
    for (const name of FILES) renameSync(join(fresh, name), join(dir, name));
    rmSync(fresh, { recursive: true, force: true });
    return { saved, lost: lostSeqs.length, lostSeqs: ranges(lostSeqs), kept, check: readable.check };
  } finally {
    release();
  }
}
