import { renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { validateDraft, type Envelope } from '../../bus/index.js';
import { ArchiveWriter, keptOf, mergeBySeq, syncFolder, type Compacted, type Plan } from './compact.js';
import { LogError } from './errors.js';
import { EventLog } from './event-log.js';

// The lock file first: a reader that opens between the two renames then reads the old data file, which nobody writes
// any more, through a lock file the writer will share. Data first paired the new data file with the old lock file,
// where the writer cannot see that reader's snapshot and reuses its pages (a torn read, seen in a CI run).
const FILES = ['lock.mdb', 'data.mdb'] as const;
/** Events copied between two turns of the event loop: turns go on while the log is copied. */
const CHUNK = 500;

/**
 * A compaction of the log a process writes (the gateway's, on its schedule): what `plan` keeps is copied into a fresh
 * environment in chunks while appends go on, then, between two batches, the events appended meanwhile are copied too,
 * the closing event is written and the fresh files take the old ones' place (`EventLog.replaceFiles`). A kill before
 * the swap leaves the old log whole (and a fresh folder behind, which the next compaction of that second replaces).
 * `signal` abandons the copy between two chunks (the gateway stops): the copy and the archive being written are
 * removed and it throws `compaction_stopped`; once the swap has begun it finishes.
 */
export async function compactLive(log: EventLog, plan: Plan, now: Date, signal?: AbortSignal): Promise<Compacted> {
  const bytesBefore = log.storedBytes().total;
  const stamp = now.toISOString().replace(/[:.]/g, '-');
  const fresh = join(log.dir, `.compact-${stamp}`);
  rmSync(fresh, { recursive: true, force: true });
  const snapshot = log.lastCommittedSeq();
  plan.prepare(log);
  const result: Compacted = { kept: 0, archived: 0, removed: 0 };
  const archive = new ArchiveWriter(log.dir, stamp);
  const out = EventLog.open(fresh);
  try {
    const added = [...(plan.added ?? [])];
    let after = 0;
    for (;;) {
      const chunk = [...log.iterate({ after, before: snapshot + 1, limit: CHUNK })];
      if (chunk.length === 0) break;
      const last = chunk.at(-1)!.seq;
      out.restoreBlobs(log.rawBlobs());
      const due = added.filter((event) => event.seq <= last);
      out.restore(mergeBySeq(keptOf(chunk, plan, result, archive), due));
      added.splice(0, due.length);
      after = last;
      await nextTurn();
      if (signal?.aborted) throw new LogError('compaction_stopped', 'the compaction was stopped before the swap');
    }
    out.restore(added);
    const written = await archive.close();
    if (written) result.archive = written;
    await log.replaceFiles((writtenSeq) => {
      out.restoreBlobs(log.rawBlobs());
      out.restore(log.iterate({ after: snapshot }));
      Object.assign(result, { bytes_before: bytesBefore, bytes_after: out.storedBytes().total });
      const closing = validateDraft(plan.closing(result));
      out.restore([{ ...closing, seq: writtenSeq + 1, at: now.getTime() } as Envelope]);
      out.close();
      // Each rename replaces its file at once: a kill leaves the old data file or the new one, never none.
      for (const name of FILES) renameSync(join(fresh, name), join(log.dir, name));
      syncFolder(log.dir);
    });
    return result;
  } catch (error) {
    await archive.abandon();
    throw error;
  } finally {
    out.close();
    rmSync(fresh, { recursive: true, force: true });
  }
}
