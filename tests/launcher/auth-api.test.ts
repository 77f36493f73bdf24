import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startLauncher } from '../../adapters/launcher/server.js';
import { call, errorBody, logIn, PASSWORD, rawCall, setUp, setupBody, start, tempHome } from './launcher-harness.js';

/** The token with its last character changed: one in 64 tokens ends with the `x` a fixed swap would use. */
const otherToken = (token: string): string => `${token.slice(0, -1)}${token.endsWith('x') ? 'y' : 'x'}`;

const refusedSetups: Array<
  [string, { json?: unknown; body?: string; headers?: Record<string, string> }, number, unknown]
> = [
  [
    'a password under 8 characters',
    { json: { password: 'short', confirm: 'short' } },
    400,
    errorBody('password_too_short', 'password must be at least 8 characters (spaces at either end do not count)'),
  ],
  [
    '8 characters only with the surrounding spaces',
    { json: { password: '  abc1234  ', confirm: '  abc1234  ' } },
    400,
    errorBody('password_too_short', 'password must be at least 8 characters (spaces at either end do not count)'),
  ],
  [
    'a confirm that differs',
    { json: { password: PASSWORD, confirm: `${PASSWORD}!` } },
    400,
    errorBody('password_mismatch', 'confirm must equal password'),
  ],
  ['no confirm', { json: { password: PASSWORD } }, 400, errorBody('invalid_body', 'confirm must be a string')],
  [
    'a number as password',
    { json: { password: 12345678, confirm: '12345678' } },
    400,
    errorBody('invalid_body', 'password must be a string'),
  ],
  [
    'a JSON array',
    { json: [PASSWORD, PASSWORD] },
    400,
    errorBody('invalid_body', 'body must be a JSON object with "password" and "confirm"'),
  ],
  [
    'a password over 1024 characters',
    { json: { password: 'x'.repeat(1025), confirm: 'x'.repeat(1025) } },
    400,
    errorBody('invalid_body', 'password must be at most 1024 characters'),
  ],
  [
    'a body over 16 KiB',
    { json: { password: 'x'.repeat(20_000), confirm: 'x' } },
    413,
    errorBody('body_too_large', 'the body is larger than 16 KiB'),
  ],
  [
    'a form-encoded body',
    {
      body: `password=${PASSWORD}&confirm=${PASSWORD}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    },
    400,
    errorBody('json_required', 'send the body as JSON with Content-Type: application/json'),
  ],
  [
    'malformed JSON',
    { body: '{"password":', headers: { 'content-type': 'application/json' } },
    400,
    errorBody('invalid_json', 'the body is not valid JSON'),
  ],
];

test(
  'first-run setup refuses bad passwords and bodies with 400 (413 when too large), ' +
    'naming the problem, and stays uninitialized',
  async () => {
    const { home, remove } = tempHome();
    const launcher = await start(home);
    try {
      for (const [name, request, status, body] of refusedSetups) {
        // Each carries the right setup token, so what is refused is the password or the body.
        const json = request.json;
        const isObject = typeof json === 'object' && json !== null && !Array.isArray(json);
        const withToken = isObject ? { ...json, setup_token: launcher.setupToken } : json;
        const reply = await call(launcher, '/api/auth/setup', { method: 'POST', ...request, json: withToken });
        assert.is(reply.status, status, name);
        assert.equal(reply.body, body, name);
        assert.is(reply.cookie, undefined, name);
      }
      assert.equal((await call(launcher, '/api/auth/status')).body, { initialized: false, authenticated: false });
    } finally {
      await launcher.close();
      remove();
    }
  },
);

test('first-run setup needs no session, answers 200 with a session cookie and the status', async () => {
  const { home, remove } = tempHome();
  const launcher = await start(home);
  try {
    assert.equal((await call(launcher, '/api/auth/status')).body, { initialized: false, authenticated: false });
    const reply = await call(launcher, '/api/auth/setup', { json: setupBody(launcher) });
    assert.is(reply.status, 200);
    assert.equal(reply.body, { initialized: true, authenticated: true });
    assert.equal((await call(launcher, '/api/auth/status', { cookie: reply.cookie })).body, {
      initialized: true,
      authenticated: true,
    });
    assert.equal((await call(launcher, '/api/auth/status')).body, { initialized: true, authenticated: false });
    assert.equal((await call(launcher, '/api/me', { cookie: reply.cookie })).body, { authenticated: true });
  } finally {
    await launcher.close();
    remove();
  }
});

const TOKEN_HINT = 'open the setup link tern-launcher printed when it started (/launcher-setup?setup_token=…)';

test('first-run setup needs the setup token of this launcher: 400 without it, 403 with another, once', async () => {
  const { home, remove } = tempHome();
  const launcher = await start(home);
  try {
    assert.match(launcher.setupToken, /^[A-Za-z0-9_-]{32}$/);
    const passwords = { password: PASSWORD, confirm: PASSWORD };
    const required = errorBody('setup_token_required', `setup_token is required: ${TOKEN_HINT}`);
    const refused: Array<[string, Record<string, unknown>, number, unknown]> = [
      ['no token', passwords, 400, required],
      ['an empty token', { ...passwords, setup_token: ' ' }, 400, required],
      [
        'another token',
        { ...passwords, setup_token: otherToken(launcher.setupToken) },
        403,
        errorBody('setup_token_mismatch', `setup_token is not the one of this launcher: ${TOKEN_HINT}`),
      ],
      ['a number', { ...passwords, setup_token: 42 }, 400, errorBody('invalid_body', 'setup_token must be a string')],
    ];
    for (const [name, json, status, body] of refused) {
      const reply = await call(launcher, '/api/auth/setup', { json });
      assert.is(reply.status, status, name);
      assert.equal(reply.body, body, name);
      assert.is(reply.cookie, undefined, name);
    }
    assert.equal((await call(launcher, '/api/auth/status')).body, { initialized: false, authenticated: false });

    const first = await call(launcher, '/api/auth/setup', { json: setupBody(launcher) });
    assert.is(first.status, 200);
    const again = await call(launcher, '/api/auth/setup', { json: setupBody(launcher, 'taken over?') });
    assert.is(again.status, 401, 'the token is spent once a password is set');
    assert.equal(again.body, errorBody('unauthenticated', 'a password is already set; sign in to change it'));
  } finally {
    await launcher.close();
    remove();
  }
});

test('a preset setup token replaces the random one; each start has its own otherwise', async () => {
  const homes = [tempHome(), tempHome(), tempHome()];
  const [preset, first, second] = await Promise.all([
    startLauncher({ home: homes[0]!.home, host: '127.0.0.1', port: 0, setupToken: ' automation-token-0123 ' }),
    start(homes[1]!.home),
    start(homes[2]!.home),
  ]);
  try {
    assert.is(preset.setupToken, 'automation-token-0123');
    assert.is.not(first.setupToken, second.setupToken);
    assert.is((await call(first, '/api/auth/setup', { json: setupBody(second) })).status, 403);
    const presetSetup = { ...setupBody(preset), setup_token: 'automation-token-0123' };
    assert.is((await call(preset, '/api/auth/setup', { json: presetSetup })).status, 200);
    const short = await startLauncher({ home: homes[0]!.home, host: '127.0.0.1', port: 0, setupToken: 'short' }).then(
      (launcher) => launcher.close().then(() => 'started'),
      (error: Error) => error.message,
    );
    assert.is(short, 'AGENT_LAUNCHER_SETUP_TOKEN must have at least 16 characters (it has 5)');
  } finally {
    await Promise.all([preset.close(), first.close(), second.close()]);
    for (const home of homes) home.remove();
  }
});

test('setup after the first run needs a session: 401 without one, a password change with one', async () => {
  const { home, remove } = tempHome();
  const launcher = await start(home);
  try {
    const cookie = await setUp(launcher);
    const anonymous = await call(launcher, '/api/auth/setup', {
      json: { password: 'intruder-pass', confirm: 'intruder-pass' },
    });
    assert.is(anonymous.status, 401);
    assert.equal(anonymous.body, errorBody('unauthenticated', 'a password is already set; sign in to change it'));
    assert.is((await call(launcher, '/api/auth/login', { json: { password: 'intruder-pass' } })).status, 401);

    const change = await call(launcher, '/api/auth/setup', {
      cookie,
      json: { password: 'a new password', confirm: 'a new password' },
    });
    assert.is(change.status, 200);
    assert.is((await call(launcher, '/api/auth/login', { json: { password: PASSWORD } })).status, 401);
    assert.is((await call(launcher, '/api/auth/login', { json: { password: 'a new password' } })).status, 200);
  } finally {
    await launcher.close();
    remove();
  }
});

test('login: 409 before setup, 401 for a wrong password, 200 with a fresh cookie for the right one', async () => {
  const { home, remove } = tempHome();
  const launcher = await start(home);
  try {
    const early = await call(launcher, '/api/auth/login', { json: { password: PASSWORD } });
    assert.is(early.status, 409);
    assert.equal(early.body, errorBody('not_initialized', 'no password is set yet; create one at /launcher-setup'));
    const setupCookie = await setUp(launcher);

    const wrong = await call(launcher, '/api/auth/login', { json: { password: 'not the password' } });
    assert.is(wrong.status, 401);
    assert.equal(wrong.body, errorBody('wrong_password', 'wrong password'));
    assert.is(wrong.cookie, undefined);

    const right = await call(launcher, '/api/auth/login', { json: { password: PASSWORD } });
    assert.is(right.status, 200);
    assert.equal(right.body, { initialized: true, authenticated: true });
    assert.ok(right.cookie);
    assert.is.not(right.cookie, setupCookie);
    assert.is((await call(launcher, '/api/me', { cookie: right.cookie })).status, 200);
  } finally {
    await launcher.close();
    remove();
  }
});

test('passwords are trimmed at setup and at login alike', async () => {
  const { home, remove } = tempHome();
  const launcher = await start(home);
  try {
    await setUp(launcher, `  ${PASSWORD}\n`);
    assert.is((await call(launcher, '/api/auth/login', { json: { password: PASSWORD } })).status, 200);
    assert.is((await call(launcher, '/api/auth/login', { json: { password: ` ${PASSWORD} ` } })).status, 200);
  } finally {
    await launcher.close();
    remove();
  }
});

test('login refuses bodies that are not a JSON object with a string password', async () => {
  const { home, remove } = tempHome();
  const launcher = await start(home);
  try {
    await setUp(launcher);
    const cases: Array<[{ json?: unknown; body?: string; headers?: Record<string, string> }, unknown]> = [
      [{ json: {} }, errorBody('invalid_body', 'password must be a string')],
      [{ json: [PASSWORD] }, errorBody('invalid_body', 'body must be a JSON object with "password"')],
      [
        { body: PASSWORD, headers: { 'content-type': 'text/plain' } },
        errorBody('json_required', 'send the body as JSON with Content-Type: application/json'),
      ],
    ];
    for (const [request, body] of cases) {
      const reply = await call(launcher, '/api/auth/login', { method: 'POST', ...request });
      assert.is(reply.status, 400);
      assert.equal(reply.body, body);
    }
  } finally {
    await launcher.close();
    remove();
  }
});

test('logout: POST with JSON (empty or {}) ends the session; GET is no route; other bodies are 400', async () => {
  const { home, remove } = tempHome();
  const launcher = await start(home);
  try {
    const cookie = await setUp(launcher);
    const get = await call(launcher, '/api/auth/logout', { cookie });
    assert.is(get.status, 404);
    assert.equal(get.body, errorBody('not_found', 'no route GET /api/auth/logout'));

    const refused: Array<[{ body?: string; headers?: Record<string, string> }, unknown]> = [
      [
        { body: '', headers: { 'content-type': 'text/plain' } },
        errorBody('json_required', 'send the body as JSON with Content-Type: application/json'),
      ],
      [
        { body: 'bye', headers: { 'content-type': 'text/plain' } },
        errorBody('json_required', 'send the body as JSON with Content-Type: application/json'),
      ],
      [
        { body: '{}', headers: { 'content-type': 'application/x-www-form-urlencoded' } },
        errorBody('json_required', 'send the body as JSON with Content-Type: application/json'),
      ],
      [
        { body: '{"everywhere":true}', headers: { 'content-type': 'application/json' } },
        errorBody('invalid_body', 'logout takes an empty body or {}'),
      ],
      [
        { body: '[]', headers: { 'content-type': 'application/json' } },
        errorBody('invalid_body', 'logout takes an empty body or {}'),
      ],
      [
        { body: '{', headers: { 'content-type': 'application/json' } },
        errorBody('invalid_json', 'the body is not valid JSON'),
      ],
    ];
    for (const [request, body] of refused) {
      const reply = await call(launcher, '/api/auth/logout', { method: 'POST', cookie, ...request });
      assert.is(reply.status, 400, JSON.stringify(request));
      assert.equal(reply.body, body);
    }
    assert.is((await call(launcher, '/api/me', { cookie })).status, 200, 'refused logouts leave the session alone');

    const out = await call(launcher, '/api/auth/logout', { cookie, json: {} });
    assert.is(out.status, 200);
    assert.equal(out.body, { initialized: true, authenticated: false });
    assert.match(
      out.headers.get('set-cookie') ?? '',
      /^tern_session=; Path=\/; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; SameSite=Strict$/,
    );
    assert.is((await call(launcher, '/api/me', { cookie })).status, 401, 'the old cookie no longer works');

    const second = await logIn(launcher);
    const empty = await call(launcher, '/api/auth/logout', {
      method: 'POST',
      cookie: second,
      headers: { 'content-type': 'application/json' },
      body: '',
    });
    assert.is(empty.status, 200);
    assert.is((await call(launcher, '/api/me', { cookie: second })).status, 401);

    const third = await logIn(launcher);
    const bodiless = await rawCall(launcher, '/api/auth/logout', {
      method: 'POST',
      headers: { cookie: third, 'content-type': 'application/json; charset=utf-8' },
    });
    assert.is(bodiless.status, 200, 'no body at all counts as empty');
    assert.is((await call(launcher, '/api/me', { cookie: third })).status, 401);
  } finally {
    await launcher.close();
    remove();
  }
});

test.run();
