import { closeSync, openSync, readdirSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { validateDraft } from '../../bus/index.js';
import { EventLog } from '../../store/log/event-log.js';
import { Logger } from '../../store/logs/logger.js';
import { RotatingFile } from '../../store/logs/rotating-file.js';
import { chunk } from '../support/events.js';
import { tempHome } from '../support/temp-home.js';
import { Redactor } from '../../store/config/index.js';

// A closed file's descriptor number is handed to the next file the process opens: here the event log's.
test('a line logged after its log file is closed never lands in the event log opened since', async () => {
  const home = tempHome();
  try {
    const gatewayLog = join(home.home, 'logs', 'gateway.log');
    const logger = new Logger(
      [new RotatingFile(gatewayLog, { maxBytes: 1_000_000, backups: 0 })],
      'debug',
      Redactor.none,
    );
    logger.info('gateway stopped');
    logger.close();
    const log = EventLog.open(home.sessions);
    for (let i = 0; i < 200; i++)
      logger.warn('cron run not recorded', { job: 'ab12cd34', reason: 'the workspace is gone' });
    for (const delta of ['one', 'two', 'three']) log.append(validateDraft(chunk('s', 't', delta)));
    await log.flushed();
    log.close();

    const reopened = EventLog.open(home.sessions, { readOnly: true });
    const deltas = reopened.read().map((e) => (e.type === 'provider.chunk' ? e.data.delta : e.type));
    reopened.close();
    assert.equal(deltas, ['one', 'two', 'three']);
    for (const file of readdirSync(home.sessions))
      assert.not.ok(readFileSync(join(home.sessions, file)).includes('cron run not recorded'), file);
    assert.match(readFileSync(gatewayLog, 'utf8'), /^\S+ INFO gateway stopped\n$/);
  } finally {
    home.remove();
  }
});

test('closing a log file twice leaves alone the file opened since under its old descriptor number', () => {
  const home = tempHome();
  try {
    const path = join(home.home, 'logs', 'gateway.log');
    const file = new RotatingFile(path, { maxBytes: 1_000_000, backups: 0 });
    file.write('gateway started');
    file.close();
    const otherPath = join(home.home, 'other.txt');
    const other = openSync(otherPath, 'a');
    file.close();
    writeSync(other, 'still open\n');
    closeSync(other);
    assert.is(readFileSync(otherPath, 'utf8'), 'still open\n');
    assert.is(readFileSync(path, 'utf8'), 'gateway started\n');
  } finally {
    home.remove();
  }
});

test.run();
