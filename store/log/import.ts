import { existsSync, readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { Envelope } from '../../bus/index.js';
import { rewrite, type Compacted } from './compact.js';
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
  function* added(): Generator<Envelope> {
    for (const event of archived(file)) {
      if (log!.get(event.seq)) skipped++;
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
      },
      fate: () => 'keep',
      added: added(),
      closing: () => ({ type: 'log.imported', data: { file: basename(file), imported, skipped } }),
    },
    now,
  );
  return { ...result, imported, skipped };
}
