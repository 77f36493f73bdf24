import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openAuthStore } from '../../store/auth-db.js';
import { tempHome } from './launcher-harness.js';

test(
  'the auth database keeps its session secret and live sessions across reopening, ' + 'and forgets lapsed ones',
  async () => {
    const { home, remove } = tempHome();
    const first = await openAuthStore(home);
    const now = Date.now();
    await first.sessions.put('live', { data: { authenticated: true }, expires: now + 60_000 });
    await first.sessions.put('lapsed', { data: { authenticated: true }, expires: now - 1 });
    assert.is(await first.sessions.get('lapsed'), undefined);
    await first.sessions.put('lapsing', { data: {}, expires: now - 1 });
    await first.close();

    const second = await openAuthStore(home);
    try {
      assert.is(second.sessionSecret, first.sessionSecret);
      assert.equal(await second.sessions.get('live'), { data: { authenticated: true }, expires: now + 60_000 });
      assert.is(await second.sessions.get('lapsing'), undefined);
      await second.sessions.delete('live');
      assert.is(await second.sessions.get('live'), undefined);
    } finally {
      await second.close();
      remove();
    }
  },
);

test('the config-file fallback keeps sessions in memory with a new secret each time', async () => {
  const { home, remove } = tempHome();
  writeFileSync(join(home, 'launcher-auth.db'), '');
  const first = await openAuthStore(home);
  await first.sessions.put('live', { data: {}, expires: Date.now() + 60_000 });
  assert.equal(first.storage, { file: 'launcher-config.json', reason: 'EEXIST' });
  await first.close();
  const second = await openAuthStore(home);
  try {
    assert.is.not(second.sessionSecret, first.sessionSecret);
    assert.is(await second.sessions.get('live'), undefined);
    await second.setPasswordHash('c2NyeXB0');
    assert.is(await second.passwordHash(), 'c2NyeXB0');
  } finally {
    await second.close();
    remove();
  }
});

test.run();
