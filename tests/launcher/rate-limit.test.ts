import { statSync } from 'node:fs';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { LOGIN_RESET_FILE, LoginLimits } from '../../adapters/launcher/login-limit.js';
import { launcherEntry, repoRoot } from '../support/cli.js';
import { call, errorBody, PASSWORD, rawCall, setUp, start, tempHome } from './launcher-harness.js';

const LOGIN = {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ password: PASSWORD }),
};
const LIMITED = errorBody('rate_limited', 'too many login attempts');

test('login: 5 free attempts per client IP, then doubling waits (Retry-After); the right password clears', async () => {
  const { home, remove } = tempHome();
  const launcher = await start(home);
  try {
    await setUp(launcher);
    // Every attempt counts, whatever its outcome; invalid bodies keep the test quick (no password hashing, which
    // can take longer than the first wait on a busy machine).
    for (let attempt = 1; attempt <= 6; attempt++) {
      assert.is((await call(launcher, '/api/auth/login', { json: {} })).status, 400, `attempt ${attempt}`);
    }
    const limited = await call(launcher, '/api/auth/login', { json: { password: PASSWORD } });
    assert.is(limited.status, 429, 'and makes the next wait 1 s, even with the right password');
    assert.equal(limited.body, LIMITED);
    assert.is(limited.headers.get('retry-after'), '1');
    assert.is(limited.cookie, undefined);

    const spoofed = await call(launcher, '/api/auth/login', {
      json: { password: PASSWORD },
      headers: { 'x-forwarded-for': '203.0.113.9' },
    });
    assert.is(spoofed.status, 429, 'X-Forwarded-For is not trusted, so it cannot dodge the limit');
    const otherClient = await rawCall(launcher, '/api/auth/login', { ...LOGIN, localAddress: '127.0.0.2' });
    assert.is(otherClient.status, 200, 'another client IP is unaffected');
    assert.equal(
      (await call(launcher, '/api/auth/status')).body,
      { initialized: true, authenticated: false },
      'only login is limited',
    );

    await sleep(1000);
    assert.is((await call(launcher, '/api/auth/login', { json: {} })).status, 400, 'the wait is over');
    const doubled = await call(launcher, '/api/auth/login', { json: { password: PASSWORD } });
    assert.is(doubled.status, 429);
    assert.is(doubled.headers.get('retry-after'), '2', 'each attempt past the free ones doubles the wait');

    await sleep(2000);
    const owner = await call(launcher, '/api/auth/login', { json: { password: PASSWORD } });
    assert.is(owner.status, 200, 'the owner signs in after the wait');
    for (let attempt = 1; attempt <= 5; attempt++) {
      const again = await call(launcher, '/api/auth/login', { json: {} });
      assert.is(again.status, 400, `after a sign-in, free attempt ${attempt} again`);
    }
  } finally {
    await launcher.close();
    remove();
  }
});

test('a guesser who keeps trying gets one try a minute at most, and the owner gets in a minute after it stops', () => {
  const { home, remove } = tempHome();
  let now = 1_000_000;
  const limits = new LoginLimits(home, () => now);
  try {
    const waits: number[] = [];
    for (let attempt = 1; attempt <= 14; attempt++) {
      let waited = 0;
      let verdict = limits.attempt('127.0.0.1');
      while (!verdict.allowed) {
        waited += verdict.retryAfterMs;
        now += verdict.retryAfterMs;
        verdict = limits.attempt('127.0.0.1');
      }
      waits.push(waited);
    }
    assert.equal(waits, [0, 0, 0, 0, 0, 0, 1000, 2000, 4000, 8000, 16000, 32000, 60000, 60000]);

    // The guesser stops; 60 s after its last try the owner may try, and a right password clears the record.
    now += 59_999;
    assert.equal(limits.attempt('127.0.0.1'), { allowed: false, retryAfterMs: 1 });
    now += 1;
    assert.equal(limits.attempt('127.0.0.1'), { allowed: true });
    limits.succeeded('127.0.0.1');
    for (let attempt = 1; attempt <= 6; attempt++) {
      assert.equal(limits.attempt('127.0.0.1'), { allowed: true }, `fresh attempt ${attempt}`);
    }
    assert.equal(limits.attempt('127.0.0.1'), { allowed: false, retryAfterMs: 1000 });

    // Quiet for 15 minutes, a client starts afresh without signing in.
    now += 15 * 60_000 + 1;
    for (let attempt = 1; attempt <= 6; attempt++) {
      assert.equal(limits.attempt('127.0.0.1'), { allowed: true }, `after a quiet spell ${attempt}`);
    }
  } finally {
    remove();
  }
});

test('tern-launcher --reset-login-limits lets a throttled client sign in at once, in a running launcher', async () => {
  const { home, remove } = tempHome();
  const launcher = await start(home);
  try {
    await setUp(launcher);
    for (let attempt = 1; attempt <= 6; attempt++) await call(launcher, '/api/auth/login', { json: {} });
    assert.is((await call(launcher, '/api/auth/login', { json: { password: PASSWORD } })).status, 429);

    // Not spawnSync: the launcher runs in this process and must keep serving meanwhile.
    const args = [...launcherEntry, '--reset-login-limits'];
    const reset = spawn(process.execPath, args, { cwd: repoRoot, env: { ...process.env, AGENT_HOME: home } });
    let stdout = '';
    let stderr = '';
    reset.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    reset.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const [code] = await once(reset, 'close');
    assert.is(stderr, '');
    assert.is(stdout, 'tern-launcher: login limits reset; every client may sign in again (a running launcher too).\n');
    assert.is(code, 0);
    assert.is(statSync(join(home, LOGIN_RESET_FILE)).mode & 0o777, 0o600);

    assert.is((await call(launcher, '/api/auth/login', { json: { password: PASSWORD } })).status, 200);
  } finally {
    await launcher.close();
    remove();
  }
});

test.run();
