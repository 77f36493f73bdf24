// What the dashboard shows when its gateway cannot start: a damaged log comes with what to do about it (issue #34).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startFailure } from '../../adapters/cli/launcher-host/gateway-host.js';
import { LOG_CORRUPTED_FIX, LogError } from '../../store/log/errors.js';

test('a damaged log names tern log verify and salvage; other failures are shown as they are', async () => {
  const damaged = Object.assign(new Error('MDB_CORRUPTED: Located page was wrong type'), { code: -30796 });
  assert.is(
    await startFailure(damaged, {}),
    `the event log is damaged (MDB_CORRUPTED: Located page was wrong type). ${LOG_CORRUPTED_FIX}`,
  );
  assert.is(
    await startFailure(new LogError('log_corrupted', 'page 3 unreadable'), {}),
    `the event log is damaged (page 3 unreadable). ${LOG_CORRUPTED_FIX}`,
  );
  const invalid = 'config.json: model_list[0].model is missing';
  assert.is(await startFailure(new Error(invalid), {}), invalid);
});

test.run();
