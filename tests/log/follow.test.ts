import { spawn } from 'node:child_process';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Envelope } from '../../bus/index.js';
import { EventLog } from '../../store/log/event-log.js';
import { follow } from '../../store/log/follow.js';
import { repoRoot } from '../support/cli.js';
import { tempHome } from '../support/temp-home.js';

test('follow sees every event another process appends, in order, as it lands', async () => {
  const home = tempHome();
  const writer = spawn(
    process.execPath,
    ['--import', 'tsx', 'tests/support/log-writer-child.ts', home.sessions, '60', '5'],
    { cwd: repoRoot },
  );
  const reader = (await EventLog.openWhenReady(home.sessions))!;
  const controller = new AbortController();
  const seen: Envelope[] = [];
  const guard = setTimeout(() => controller.abort(), 30_000);
  for await (const event of follow(reader, { type: 'provider.*' }, { signal: controller.signal })) {
    seen.push(event);
    if (seen.length === 60) break;
  }
  clearTimeout(guard);
  writer.kill();
  reader.close();
  home.remove();
  assert.equal(
    seen.map((e) => e.seq),
    Array.from({ length: 60 }, (_, i) => i + 1),
  );
  assert.equal(seen[59]!.data, { kind: 'text', delta: 'event 60' });
});
test.run();
