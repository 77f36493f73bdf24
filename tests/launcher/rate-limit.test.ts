import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { call, errorBody, PASSWORD, rawCall, setUp, start, tempHome } from './launcher-harness.js';

const LOGIN = { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ password: PASSWORD }) };

test('login allows 10 attempts per client IP per minute; the 11th is 429 even with the right password', async () => {
  const { home, remove } = tempHome();
  const launcher = await start(home);
  try {
    await setUp(launcher);
    // Every attempt counts, whatever its outcome; invalid bodies keep the test quick (no password hashing).
    for (let attempt = 1; attempt <= 10; attempt++) {
      assert.is((await call(launcher, '/api/auth/login', { json: {} })).status, 400, `attempt ${attempt}`);
    }
    const limited = await call(launcher, '/api/auth/login', { json: { password: PASSWORD } });
    assert.is(limited.status, 429);
    assert.equal(limited.body, errorBody('rate_limited', 'too many login attempts'));
    assert.is(limited.cookie, undefined);

    const spoofed = await call(launcher, '/api/auth/login', { json: { password: PASSWORD }, headers: { 'x-forwarded-for': '203.0.113.9' } });
    assert.is(spoofed.status, 429, 'X-Forwarded-For is not trusted, so it cannot dodge the limit');

    const otherClient = await rawCall(launcher, '/api/auth/login', { ...LOGIN, localAddress: '127.0.0.2' });
    assert.is(otherClient.status, 200, 'another client IP is unaffected');

    assert.equal((await call(launcher, '/api/auth/status')).body, { initialized: true, authenticated: false }, 'only login is limited');
  } finally {
    await launcher.close();
    remove();
  }
});

test.run();
