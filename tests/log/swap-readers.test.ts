// #38: a reader that opens while a compaction swaps the log's files (between the two renames) reads a whole log and
// follows to the new one.
import { renameSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { validateDraft } from '../../bus/index.js';
import { EventLog } from '../../store/log/event-log.js';
import { chunk } from '../support/events.js';
import { tempHome } from '../support/temp-home.js';

async function logOf(dir: string, texts: string[]): Promise<void> {
  const log = EventLog.open(dir);
  for (const text of texts) log.append(validateDraft(chunk('s1', 't1', text)));
  await log.flushed();
  log.close();
}

test(
  'a reader opened with the new lock file and the old ' + 'data file refreshes once the data file is swapped',
  async () => {
    const home = tempHome();
    const copy = tempHome();
    try {
      await logOf(home.sessions, ['old 1', 'old 2']);
      await logOf(copy.sessions, ['new 1', 'new 2', 'new 3']);
      // The swap's first rename (the lock file) has happened, the second (the data file) not yet.
      renameSync(join(copy.sessions, 'lock.mdb'), join(home.sessions, 'lock.mdb'));
      const reader = EventLog.open(home.sessions, { readOnly: true });
      try {
        assert.equal(
          reader.read().map((e) => e.seq),
          [1, 2],
        );
        renameSync(join(copy.sessions, 'data.mdb'), join(home.sessions, 'data.mdb'));
        reader.refresh();
        assert.equal(
          reader.read().map((e) => e.seq),
          [1, 2, 3],
        );
      } finally {
        reader.close();
      }
    } finally {
      home.remove();
      copy.remove();
    }
  },
);

test.run();
