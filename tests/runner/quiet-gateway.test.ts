// quietGateway, the wait the gateway tests use before checking that nothing more came: it must see what another
// process keeps writing into the log, though it keeps the log open between its reads.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { EventLog } from '../../store/log/event-log.js';
import { repoRoot } from '../support/cli.js';
import { quietGateway } from '../support/quiet.js';

test('quietGateway waits while another process writes the log, and returns once it stopped', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tern-quiet-'));
  // 30 events, one every 40 ms: far longer than the 300 ms of quiet asked for.
  const writer = spawn(process.execPath, ['--import', 'tsx', 'tests/support/log-writer-child.ts', dir, '30', '40'], {
    cwd: repoRoot,
  });
  try {
    const written: number[] = [];
    const first = new Promise<void>((resolve) =>
      writer.stdout.on('data', (chunk: Buffer) => {
        written.push(...chunk.toString().trim().split('\n').map(Number));
        resolve();
      }),
    );
    const exited = new Promise((resolve) => writer.once('exit', resolve));
    await first;
    await quietGateway(dir, () => 'the chat', { quietMs: 300 });
    assert.is(written.at(-1), 30, `quiet only once the writer was done; it had written ${written.at(-1)}`);
    await exited;
    const log = EventLog.open(dir, { readOnly: true });
    assert.is(log.lastCommittedSeq(), 30);
    log.close();
  } finally {
    writer.kill();
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
