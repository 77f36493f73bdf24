import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { validateDraft } from '../../bus/index.js';
import { EventLog } from '../../store/log/event-log.js';
import { LogError } from '../../store/log/errors.js';
import { chunk } from '../support/events.js';
import { tempHome, type TempHome } from '../support/temp-home.js';
import { eventStoreContract } from './event-store-suite.js';

eventStoreContract('lmdb', () => {
  const home = tempHome();
  let store = EventLog.open(home.sessions);
  return {
    get store() {
      return store;
    },
    reopen: () => {
      store.close();
      store = EventLog.open(home.sessions);
      return store;
    },
    dispose: () => {
      store.close();
      home.remove();
    },
  };
});

const test = suite<{ home: TempHome; log: EventLog }>('event log on lmdb');

test.before.each((ctx) => {
  ctx.home = tempHome();
  ctx.log = EventLog.open(ctx.home.sessions);
});
test.after.each((ctx) => {
  ctx.log.close();
  ctx.home.remove();
});

test('a second writer is refused while the first is open', ({ home }) => {
  const error = (() => {
    try {
      EventLog.open(home.sessions);
    } catch (e) {
      return e;
    }
  })();
  assert.instance(error, LogError);
  assert.is((error as LogError).code, 'log_locked');
});

test('a reader opens beside the writer and sees what was committed', async ({ home, log }) => {
  for (let i = 0; i < 12; i++) log.append(validateDraft(chunk('a', 't')));
  await log.flushed();
  const reader = EventLog.open(home.sessions, { readOnly: true });
  assert.is(reader.read().length, 12);
  assert.throws(
    () => reader.append(validateDraft(chunk('a', 't'))),
    (e: unknown) => (e as LogError).code === 'log_write_failed',
  );
  reader.close();
});

test('opening a missing log to read fails with log_missing and creates nothing', ({ home }) => {
  try {
    EventLog.open(`${home.home}/nowhere`, { readOnly: true });
    assert.unreachable('should have thrown');
  } catch (e) {
    assert.is((e as LogError).code, 'log_missing');
  }
});
test.run();
