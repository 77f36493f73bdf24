import { existsSync, readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { Envelope } from '../../bus/index.js';
import { planUnroll, type RollupPlan } from '../usage/rollup-plan.js';
import { mergeBySeq, rewrite, type Compacted } from './compact.js';
import { LogError } from './errors.js';
import type { EventLog } from './event-log.js';

export interface Imported extends Compacted {
  imported: number;
  skipped: number;
}

function unzipped(file: string): string {
  try {
    return gunzipSync(readFileSync(file)).toString('utf8');
  } catch (error) {
    throw new LogError('archive_unreadable', `${file} is not a gzipped archive (${(error as Error).message})`);
  }
}

function parsed(file: string, line: string): Partial<Envelope> {
  try {
    return JSON.parse(line) as Partial<Envelope>;
  } catch {
    throw new LogError('archive_unreadable', `${file} holds a line that is not JSON`);
  }
}

/** The events of an archive file (`tern log compact` wrote it: gzipped JSON lines, in seq order). */
function* archived(file: string): Generator<Envelope> {
  let previous = 0;
  for (const line of unzipped(file).split('\n')) {
    if (!line) continue;
    const event = parsed(file, line);
    const valid = Number.isInteger(event.seq) && typeof event.type === 'string' && typeof event.at === 'number';
    if (!valid || event.seq! <= previous) {
      throw new LogError(
        'archive_unreadable',
        `${file} is not an archive of an event log: a line is not an event in order`,
      );
    }
    previous = event.seq!;
    yield event as Envelope;
  }
}

/**
 * `tern log import FILE`: the events of an archive go back into the log at their own seq (the holes the compaction
 * left), the log rewritten in seq order like a compaction does; events the log holds already are skipped, so an
 * import twice changes nothing more. A `log.imported` event records it.
 */
export async function importArchive(dir: string, file: string, now = new Date()): Promise<Imported> {
  if (!existsSync(file)) throw new LogError('archive_unreadable', `no archive at ${file}`);
  // Read through once before the rewrite begins: a damaged file changes nothing.
  for (const _ of archived(file));
  let log: EventLog | undefined;
  let imported = 0;
  let skipped = 0;
  let rollup: RollupPlan = { covered: new Set(), event: undefined };
  function* added(): Generator<Envelope> {
    for (const event of archived(file)) {
      if (taken(log!, event.seq)) skipped++;
      else {
        imported++;
        yield event;
      }
    }
  }
  const result = await rewrite(
    dir,
    {
      prepare(old) {
        log = old;
        const back: Envelope[] = [];
        for (const event of archived(file))
          if (event.type.startsWith('provider.') && !taken(old, event.seq)) back.push(event);
        rollup = planUnroll(old, back, now.getTime());
        if (rollup.event) rollup.event.seq = freeSeq(old, file, rollup.event.seq);
      },
      // The answers brought back are taken out of the rollups, which stand for what the log no longer holds.
      fate: (event) => (rollup.covered.has(event.seq) ? 'remove' : 'keep'),
      added: mergeBySeq(added(), {
        *[Symbol.iterator]() {
          if (rollup.event) yield rollup.event;
        },
      }),
      closing: () => ({ type: 'log.imported', data: { file: basename(file), imported, skipped } }),
    },
    now,
  );
  return { ...result, imported, skipped };
}

/** The rollup's seq, or the nearest one below it that neither the log nor the archive holds (a hole to stay in). */
function freeSeq(log: EventLog, file: string, seq: number): number {
  const taken = new Set<number>();
  for (const event of archived(file)) taken.add(event.seq);
  for (let free = seq; free > 0; free--) if (!taken.has(free) && (free === seq || !log.get(free))) return free;
  throw new LogError('archive_unreadable', `${file} fills every hole of the log: its usage rollup has no place`);
}

/** Whether the log holds an event at `seq`: a rollup sits in the hole of an answer it folded, and moves for it. */
function taken(log: EventLog, seq: number): boolean {
  const there = log.get(seq);
  return there !== undefined && there.type !== 'usage.rolled_up';
}
