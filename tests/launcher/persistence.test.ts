import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { call, logIn, PASSWORD, setUp, start, tempHome } from './launcher-harness.js';

const readConfig = (home: string) =>
  JSON.parse(readFileSync(join(home, 'launcher-config.json'), 'utf8')) as Record<string, unknown>;

test('a session survives a launcher restart on the same home', async () => {
  const { home, remove } = tempHome();
  const first = await start(home);
  const cookie = await setUp(first);
  await first.close();
  const second = await start(home);
  try {
    assert.equal(second.storage, { file: 'launcher-auth.db' });
    assert.equal((await call(second, '/api/me', { cookie })).body, { authenticated: true });
    assert.equal((await call(second, '/api/auth/status')).body, { initialized: true, authenticated: false });
  } finally {
    await second.close();
    remove();
  }
});

test(
  'when launcher-auth.db cannot be opened the hash goes ' + 'to launcher-config.json (0600) and status says so',
  async () => {
    const { home, remove } = tempHome();
    writeFileSync(join(home, 'launcher-auth.db'), 'not a database');
    writeFileSync(join(home, 'launcher-config.json'), JSON.stringify({ theme: 'dark' }));
    const first = await start(home);
    try {
      assert.is(first.storage.file, 'launcher-config.json');
      assert.equal((await call(first, '/api/auth/status')).body, {
        initialized: false,
        authenticated: false,
        storage: 'launcher-config.json',
      });
      const cookie = await setUp(first);
      assert.equal((await call(first, '/api/auth/status', { cookie })).body, {
        initialized: true,
        authenticated: true,
        storage: 'launcher-config.json',
      });
      const saved = readConfig(home);
      assert.equal(Object.keys(saved), ['theme', 'password_hash']);
      assert.is(saved.theme, 'dark');
      assert.type(saved.password_hash, 'string');
      assert.not.match(JSON.stringify(saved), PASSWORD);
      assert.is(statSync(join(home, 'launcher-config.json')).mode & 0o777, 0o600);
    } finally {
      await first.close();
    }
    const second = await start(home);
    try {
      assert.is((await call(second, '/api/auth/login', { json: { password: 'wrong password' } })).status, 401);
      assert.is((await call(second, '/api/auth/login', { json: { password: PASSWORD } })).status, 200);
    } finally {
      await second.close();
      remove();
    }
  },
);

test('a second launcher on the same home finds the database locked and falls back to the config file', async () => {
  const { home, remove } = tempHome();
  const first = await start(home);
  const second = await start(home);
  try {
    assert.equal(first.storage, { file: 'launcher-auth.db' });
    assert.equal(second.storage, { file: 'launcher-config.json', reason: 'LEVEL_LOCKED' });
  } finally {
    await second.close();
    await first.close();
    remove();
  }
});

test(
  'a hash left in launcher-config.json by a fallback still signs in once the database opens, ' +
    'until a new password moves it',
  async () => {
    const { home, remove } = tempHome();
    writeFileSync(join(home, 'launcher-auth.db'), '');
    const fallback = await start(home);
    await setUp(fallback);
    await fallback.close();
    rmSync(join(home, 'launcher-auth.db'));
    const launcher = await start(home);
    try {
      assert.equal(launcher.storage, { file: 'launcher-auth.db' });
      const cookie = await logIn(launcher);
      const change = await call(launcher, '/api/auth/setup', {
        cookie,
        json: { password: 'another password', confirm: 'another password' },
      });
      assert.is(change.status, 200);
      assert.equal(readConfig(home), {});
      assert.is((await call(launcher, '/api/auth/login', { json: { password: 'another password' } })).status, 200);
    } finally {
      await launcher.close();
      remove();
    }
  },
);

const MIGRATIONS: Array<[string, unknown, 'adopted' | 'dropped', boolean]> = [
  ['a token of 8+ characters becomes the password', 'legacy-token-1234', 'adopted', true],
  ['a token with spaces around 8+ characters becomes the trimmed password', '  legacy-token-1234 ', 'adopted', true],
  ['a token under 8 characters is only dropped', 'short', 'dropped', false],
  ['a token that is not a string is only dropped', 12345678, 'dropped', false],
];

test('a legacy launcher_token is migrated once and removed from the saved launcher config', async () => {
  for (const [name, token, outcome, initialized] of MIGRATIONS) {
    const { home, remove } = tempHome();
    writeFileSync(join(home, 'launcher-config.json'), JSON.stringify({ launcher_token: token, theme: 'dark' }));
    const launcher = await start(home);
    try {
      assert.is(launcher.tokenMigration, outcome, name);
      assert.equal(readConfig(home), { theme: 'dark' }, name);
      assert.equal((await call(launcher, '/api/auth/status')).body, { initialized, authenticated: false }, name);
      if (initialized) {
        assert.is(
          (await call(launcher, '/api/auth/login', { json: { password: 'legacy-token-1234' } })).status,
          200,
          name,
        );
        assert.is((await call(launcher, '/api/me?token=legacy-token-1234')).status, 401, name);
      }
    } finally {
      await launcher.close();
    }
    const again = await start(home);
    assert.is(again.tokenMigration, 'none', `${name}: only once`);
    await again.close();
    remove();
  }
});

test('a legacy token next to an existing password is dropped and does not replace it', async () => {
  const { home, remove } = tempHome();
  const first = await start(home);
  await setUp(first);
  await first.close();
  writeFileSync(join(home, 'launcher-config.json'), JSON.stringify({ launcher_token: 'legacy-token-1234' }));
  const second = await start(home);
  try {
    assert.is(second.tokenMigration, 'dropped');
    assert.equal(readConfig(home), {});
    assert.is((await call(second, '/api/auth/login', { json: { password: 'legacy-token-1234' } })).status, 401);
    assert.is((await call(second, '/api/auth/login', { json: { password: PASSWORD } })).status, 200);
  } finally {
    await second.close();
    remove();
  }
});

test('an unreadable launcher-config.json stops the launcher with an error naming the file', async () => {
  const cases: Array<[string, string]> = [
    ['{"launcher_token":', 'launcher_config_invalid'],
    ['{"password_hash": 5}', 'launcher_config_invalid'],
    ['[]', 'launcher_config_invalid'],
  ];
  for (const [content, code] of cases) {
    const { home, remove } = tempHome();
    writeFileSync(join(home, 'launcher-config.json'), content);
    try {
      let error: { code?: string; message: string } | undefined;
      try {
        await (await start(home)).close();
      } catch (thrown) {
        error = thrown as { code?: string; message: string };
      }
      assert.is(error?.code, code, content);
      assert.match(error?.message ?? '', join(home, 'launcher-config.json'));
    } finally {
      remove();
    }
  }
});

test.run();
