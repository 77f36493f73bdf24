import { test } from 'uvu';
import * as assert from 'uvu/assert';
import express from 'express';
import { startLauncher } from '../../adapters/launcher/server.js';
import { call, errorBody, PASSWORD, rawCall, setUp, setupBody, start, tempHome } from './launcher-harness.js';

const UNAUTHENTICATED = errorBody('unauthenticated', 'sign in at /launcher-login first');

test('without a session every other /api path is a JSON 401 and every page redirects to sign-in', async () => {
  const { home, remove } = tempHome();
  const launcher = await start(home);
  try {
    for (const path of ['/', '/chat', '/launcher-login/extra']) {
      const reply = await call(launcher, path);
      assert.is(reply.status, 302, path);
      assert.is(reply.headers.get('location'), '/launcher-setup', `${path} before setup`);
    }
    await setUp(launcher);
    for (const path of ['/api/me', '/api/config', '/api', '/api/auth/other', '/API/me', '/api/me/']) {
      const reply = await call(launcher, path);
      assert.is(reply.status, 401, path);
      assert.equal(reply.body, UNAUTHENTICATED, path);
    }
    for (const path of ['/', '/chat', '/index.html', '/favicon.ico']) {
      const reply = await call(launcher, path);
      assert.is(reply.status, 302, path);
      assert.is(reply.headers.get('location'), '/launcher-login', path);
    }
  } finally {
    await launcher.close();
    remove();
  }
});

test('the sign-in pages send each visitor to the page that fits the password state', async () => {
  const { home, remove } = tempHome();
  const launcher = await start(home);
  try {
    const setupPage = await call(launcher, '/launcher-setup');
    assert.is(setupPage.status, 200);
    assert.match(setupPage.text, '<form id="setup-form" data-endpoint="/api/auth/setup">');
    assert.is((await call(launcher, '/launcher-login')).headers.get('location'), '/launcher-setup');

    const cookie = await setUp(launcher);
    assert.is((await call(launcher, '/launcher-setup')).headers.get('location'), '/launcher-login');
    const loginPage = await call(launcher, '/launcher-login');
    assert.is(loginPage.status, 200);
    assert.match(loginPage.text, '<form id="login-form" data-endpoint="/api/auth/login">');
    assert.is((await call(launcher, '/launcher-login', { cookie })).headers.get('location'), '/');
    assert.is(
      (await call(launcher, '/launcher-setup', { cookie })).status,
      200,
      'a signed-in user may change the password',
    );

    const script = await call(launcher, '/auth/auth.js');
    assert.is(script.status, 200);
    assert.is(script.headers.get('content-type'), 'text/javascript; charset=utf-8');
    assert.not.match(setupPage.text + loginPage.text, /<script>|<script [^>]*>[^<]/);
    const home200 = await call(launcher, '/', { cookie });
    assert.is(home200.status, 200);
    assert.match(home200.text, '<title>Tern</title>');
  } finally {
    await launcher.close();
    remove();
  }
});

test('?token=, Authorization: Bearer and AGENT_LAUNCHER_TOKEN never authenticate', async () => {
  const { home, remove } = tempHome();
  const previous = process.env.AGENT_LAUNCHER_TOKEN;
  process.env.AGENT_LAUNCHER_TOKEN = 'env-token-123456';
  const launcher = await start(home);
  try {
    await setUp(launcher);
    const attempts: Array<[string, Record<string, string>]> = [
      ['/api/me?token=env-token-123456', {}],
      [`/api/me?token=${encodeURIComponent(PASSWORD)}`, {}],
      ['/api/me', { authorization: 'Bearer env-token-123456' }],
      ['/api/me', { authorization: `Bearer ${PASSWORD}` }],
      ['/api/me', { 'x-launcher-token': 'env-token-123456' }],
      ['/api/me', { cookie: 'tern_session=env-token-123456' }],
    ];
    for (const [path, headers] of attempts) {
      const reply = await call(launcher, path, { headers });
      assert.is(reply.status, 401, `${path} ${JSON.stringify(headers)}`);
      assert.equal(reply.body, UNAUTHENTICATED);
    }
    const page = await call(launcher, '/?token=env-token-123456');
    assert.is(page.status, 302);
    assert.is(page.headers.get('location'), '/launcher-login');
  } finally {
    await launcher.close();
    if (previous === undefined) delete process.env.AGENT_LAUNCHER_TOKEN;
    else process.env.AGENT_LAUNCHER_TOKEN = previous;
    remove();
  }
});

const PATH_TRICKS = [
  '/assets/../api/me',
  '/./api/me',
  '//api/me',
  '/api//me',
  '/%2e%2e/api/me',
  '/%2E%2E/api/me',
  '/auth/..%2fapi/me',
  '/auth/%2e%2e/api/me',
  '/launcher-login/../api/me',
  '/api/auth/login/../../me',
  '/api/auth/status/../../me',
  '/%61pi/me',
  '/api%2fme',
  '/auth\\..\\api\\me',
];

test('path tricks never pass the gate: 401 without a session, 400 with one', async () => {
  const { home, remove } = tempHome();
  const launcher = await start(home);
  try {
    const cookie = await setUp(launcher);
    for (const path of PATH_TRICKS) {
      const anonymous = await rawCall(launcher, path);
      assert.is(anonymous.status, 401, path);
      assert.equal(JSON.parse(anonymous.body), UNAUTHENTICATED, path);
      const signedIn = await rawCall(launcher, path, { headers: { cookie } });
      assert.is(signedIn.status, 400, `${path} signed in`);
      assert.is(JSON.parse(signedIn.body).error.code, 'bad_path', path);
    }
    const malformed = await rawCall(launcher, '/api/%E0%A4%A');
    assert.is(malformed.status, 400);
    assert.equal(JSON.parse(malformed.body), errorBody('bad_path', 'the request path is not valid percent-encoding'));
    assert.is(
      (await rawCall(launcher, '/auth/../launcher-login')).status,
      302,
      'a trick towards a public page is still refused',
    );
  } finally {
    await launcher.close();
    remove();
  }
});

test('every response carries the security headers, and API answers are not cached', async () => {
  const { home, remove } = tempHome();
  const launcher = await start(home);
  try {
    const expected = {
      'content-security-policy':
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
        "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'x-frame-options': 'DENY',
    };
    for (const path of ['/api/auth/status', '/launcher-setup', '/auth/auth.js', '/', '/api/me', '/auth/missing.js']) {
      const reply = await call(launcher, path);
      for (const [name, value] of Object.entries(expected))
        assert.is(reply.headers.get(name), value, `${name} on ${path}`);
      assert.is(reply.headers.get('x-powered-by'), null);
    }
    assert.is((await call(launcher, '/api/auth/status')).headers.get('cache-control'), 'no-store');
  } finally {
    await launcher.close();
    remove();
  }
});

test(
  'the session cookie is tern_session, HttpOnly, ' + 'SameSite=Strict, Path=/, not Secure over plain HTTP, 7 days',
  async () => {
    const { home, remove } = tempHome();
    const launcher = await start(home);
    try {
      const reply = await call(launcher, '/api/auth/setup', { json: setupBody(launcher) });
      const header = reply.headers.get('set-cookie') ?? '';
      const attributes = header.split('; ').slice(1);
      assert.equal(
        attributes.filter((a) => !a.startsWith('Expires=')),
        ['Path=/', 'HttpOnly', 'SameSite=Strict'],
      );
      assert.match(header, /^tern_session=s%3A/);
      const expires = Date.parse(attributes.find((a) => a.startsWith('Expires='))!.slice('Expires='.length));
      const days = Math.round((expires - Date.parse(reply.headers.get('date')!)) / 86_400_000);
      assert.is(days, 7);
      const proxied = await call(launcher, '/api/auth/login', {
        json: { password: PASSWORD },
        headers: { 'x-forwarded-proto': 'https' },
      });
      assert.not.match(proxied.headers.get('set-cookie') ?? '', 'Secure', 'forwarded headers are not trusted');
      const again = await call(launcher, '/api/me', { cookie: reply.cookie });
      assert.match(
        again.headers.get('set-cookie') ?? '',
        /^tern_session=s%3A/,
        'rolling: each request renews the expiry',
      );
    } finally {
      await launcher.close();
      remove();
    }
  },
);

test('a state-changing request from another origin is refused with 403', async () => {
  const { home, remove } = tempHome();
  const launcher = await start(home);
  try {
    const foreign = await call(launcher, '/api/auth/setup', {
      json: setupBody(launcher),
      headers: { origin: 'http://evil.example' },
    });
    assert.is(foreign.status, 403);
    assert.equal(foreign.body, errorBody('forbidden_origin', 'requests from another origin are not accepted'));
    const own = await call(launcher, '/api/auth/setup', {
      json: setupBody(launcher),
      headers: { origin: launcher.url },
    });
    assert.is(own.status, 200);
  } finally {
    await launcher.close();
    remove();
  }
});

test('routes mounted by other parts of the launcher sit behind the same gate', async () => {
  const { home, remove } = tempHome();
  const things = express.Router().get('/things', (_req, res) => {
    res.json({ things: ['a'] });
  });
  const launcher = await startLauncher({
    home,
    host: '127.0.0.1',
    port: 0,
    routes: [{ path: '/api', handler: things }],
  });
  launcher.mountProtected(
    '/api',
    express.Router().get('/later', (_req, res) => {
      res.json({ later: true });
    }),
  );
  try {
    assert.equal((await call(launcher, '/api/things')).body, UNAUTHENTICATED);
    assert.equal((await call(launcher, '/api/later')).body, UNAUTHENTICATED);
    assert.equal((await rawCall(launcher, '/auth/../api/things')).status, 401);
    const cookie = await setUp(launcher);
    assert.equal((await call(launcher, '/api/things', { cookie })).body, { things: ['a'] });
    assert.equal((await call(launcher, '/api/later', { cookie })).body, { later: true });
    assert.equal(
      (await call(launcher, '/api/nothing', { cookie })).body,
      errorBody('not_found', 'no route GET /api/nothing'),
    );
  } finally {
    await launcher.close();
    remove();
  }
});

test.run();
