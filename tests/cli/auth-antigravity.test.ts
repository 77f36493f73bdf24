import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { providerTokensPath, readProviderLogin } from '../../store/provider-tokens.js';
import { runCli, runCliAsync, startCli } from '../support/cli.js';
import { tempHome, type TempHome } from '../support/temp-home.js';
import { ISSUED, PROJECT, startGoogleFake, type GoogleFake } from '../providers/auth-google-fake.js';

const test = suite<{ home: TempHome; google: GoogleFake; env: NodeJS.ProcessEnv }>('tern auth: antigravity');
test.before.each(async (ctx) => {
  ctx.home = tempHome();
  ctx.google = await startGoogleFake();
  const { DISPLAY: _d, WAYLAND_DISPLAY: _w, ...rest } = ctx.home.env;
  ctx.env = { ...rest, AGENT_TEST_GOOGLE_OAUTH_BASE: ctx.google.url, AGENT_TEST_CLOUDCODE_BASE: ctx.google.url };
});
test.after.each(async (ctx) => {
  await ctx.google.close();
  ctx.home.remove();
});

interface Ended {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `tern auth login` on a headless box: waits for the authorize URL on stderr, hands it to `answer`, and types
 * back the URL the browser would end on.
 */
function loginByPaste(env: NodeJS.ProcessEnv, args: string[], answer: (authorize: URL) => string): Promise<Ended> {
  const child = startCli(['auth', 'login', '--provider', 'antigravity', ...args], env);
  let stdout = '';
  let stderr = '';
  let pasted = false;
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => {
    stderr += c.toString();
    const found = /^(http\S+\/o\/oauth2\/v2\/auth\?\S+)$/m.exec(stderr);
    if (found && !pasted && /paste that URL here/.test(stderr)) {
      pasted = true;
      child.stdin.write(`${answer(new URL(found[1]!))}\n`);
    }
  });
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

test('login by paste-back: PKCE and state, tokens in an owner-only file, e-mail, project and models', async (ctx) => {
  let authorize: URL | undefined;
  const ended = await loginByPaste(ctx.env, ['--no-browser'], (url) => {
    authorize = url;
    ctx.google.challenge = url.searchParams.get('code_challenge') ?? '';
    const state = url.searchParams.get('state');
    return `http://localhost:51121/auth/callback?state=${state}&code=${ISSUED.code}&scope=email`;
  });
  assert.is(ended.code, 0, ended.stderr);
  assert.is(
    ended.stdout.replace(/expires \S+/, 'expires T'),
    'logged in to antigravity as ada@example.com\n' +
      `project: ${PROJECT}; token expires T\n` +
      'models: claude-sonnet-4-5, gemini-3-flash\n',
  );
  const params = Object.fromEntries(authorize!.searchParams);
  assert.equal(
    [params.response_type, params.code_challenge_method, params.redirect_uri, params.access_type, params.prompt],
    ['code', 'S256', 'http://localhost:51121/auth/callback', 'offline', 'consent'],
  );
  const file = providerTokensPath(ctx.home.home);
  assert.is(statSync(file).mode & 0o777, 0o600);
  const stored = JSON.parse(readFileSync(file, 'utf8')) as { providers: Record<string, Record<string, unknown>> };
  const login = stored.providers.antigravity!;
  assert.equal(
    [login.access_token, login.refresh_token, login.email, login.project_id, login.models],
    [ISSUED.access, ISSUED.refresh, 'ada@example.com', PROJECT, ['claude-sonnet-4-5', 'gemini-3-flash']],
  );
  const lifetime = (login.expires_at as number) - Date.now();
  assert.ok(lifetime > 3_500_000 && lifetime <= 3_599_000, String(lifetime));
  // Nothing printed carries a token.
  for (const secret of [ISSUED.access, ISSUED.refresh]) assert.not.ok((ended.stdout + ended.stderr).includes(secret));

  const status = runCli(['auth', 'status'], ctx.env);
  assert.is(status.code, 0);
  const expires = new Date(login.expires_at as number).toISOString();
  assert.is(status.stdout, `antigravity: ada@example.com, token ya29…01, expires ${expires}, project ${PROJECT}\n`);
  const logout = runCli(['auth', 'logout', '--provider', 'antigravity'], ctx.env);
  assert.equal([logout.code, logout.stdout], [0, 'logged out of antigravity\n']);
  assert.equal(JSON.parse(readFileSync(file, 'utf8')), { providers: {} });
  assert.is(
    runCli(['auth', 'status'], ctx.env).stdout,
    'no provider logins; run `tern auth login --provider antigravity`\n',
  );
});

test('with a display: the browser opens, signs in, and comes back to the loopback listener', async (ctx) => {
  // A stand-in for the desktop's browser: follows the authorize URL and its redirect, as a browser would.
  const bin = join(ctx.home.home, 'bin');
  mkdirSync(bin, { recursive: true });
  const opened = join(ctx.home.home, 'opened.txt');
  writeFileSync(
    join(bin, 'browser.cjs'),
    'fetch(process.argv[2]).then((r) => ' +
      `require('node:fs').writeFileSync(${JSON.stringify(opened)}, r.url + ' ' + r.status));\n`,
  );
  writeFileSync(join(bin, 'xdg-open'), `#!/bin/sh\nexec "${process.execPath}" "${join(bin, 'browser.cjs')}" "$1"\n`);
  chmodSync(join(bin, 'xdg-open'), 0o755);
  const env = { ...ctx.env, DISPLAY: ':99', PATH: `${bin}:${ctx.env.PATH}` };
  const result = await runCliAsync(['auth', 'login', '--provider', 'antigravity', '--json'], env);
  assert.is(result.code, 0, result.stderr);
  const shown = JSON.parse(result.stdout) as Record<string, unknown>;
  assert.equal(
    [shown.provider, shown.account, shown.project, shown.access_token],
    ['antigravity', 'ada@example.com', PROJECT, 'ya29…01'],
  );
  assert.match(
    readFileSync(opened, 'utf8'),
    /^http:\/\/localhost:51121\/auth\/callback\?state=[0-9a-f]{64}&code=auth-code-1 200$/,
  );
  assert.is(readProviderLogin(ctx.home.home, 'antigravity')!.refresh_token, ISSUED.refresh);
});

test('with a display but the redirect port taken, the paste-back still signs in', async (ctx) => {
  const taken = createServer();
  // The port only has to be taken: by this server, or already by another socket. 51121 is in Linux's ephemeral range,
  // and a connection of any process that got it as its local port makes this listen fail too (a loop run crashed so).
  await new Promise<void>((resolve, reject) => {
    taken.once('error', (error: NodeJS.ErrnoException) => (error.code === 'EADDRINUSE' ? resolve() : reject(error)));
    taken.listen(51121, '127.0.0.1', resolve);
  });
  const bin = join(ctx.home.home, 'bin');
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, 'xdg-open'), '#!/bin/sh\nexit 0\n');
  chmodSync(join(bin, 'xdg-open'), 0o755);
  const env = { ...ctx.env, DISPLAY: ':99', PATH: `${bin}:${ctx.env.PATH}` };
  try {
    const ended = await loginByPaste(env, [], (url) => {
      ctx.google.challenge = url.searchParams.get('code_challenge') ?? '';
      return `http://localhost:51121/auth/callback?state=${url.searchParams.get('state')}&code=${ISSUED.code}`;
    });
    assert.is(ended.code, 0, ended.stderr);
    assert.match(
      ended.stderr,
      new RegExp(
        /^Port 51121 is taken \(listen EADDRINUSE: address already in use 127\.0\.0\.1:51121\); /.source +
          /paste the URL instead\.$/.source,
        'm',
      ),
    );
    assert.is(readProviderLogin(ctx.home.home, 'antigravity')!.access_token, ISSUED.access);
  } finally {
    if (taken.listening) await new Promise((resolve) => taken.close(resolve));
  }
});

test('a pasted URL of another login (its state differs) is refused and nothing is stored', async (ctx) => {
  const ended = await loginByPaste(ctx.env, [], (url) => {
    ctx.google.challenge = url.searchParams.get('code_challenge') ?? '';
    return `http://localhost:51121/auth/callback?state=forged-state&code=${ISSUED.code}`;
  });
  assert.is(ended.code, 1);
  assert.match(
    ended.stderr,
    new RegExp(
      /tern: login to antigravity failed \(the redirect URL belongs to another login \(state differs\)\)\. /.source +
        /Run `tern auth login --provider antigravity` again\.\n$/.source,
    ),
  );
  assert.not.ok(
    ctx.google.requests.some((r) => r.url === '/token'),
    'no code was exchanged',
  );
  assert.equal(runCli(['auth', 'status', '--json'], ctx.env).stdout.includes('"logins":[]'), true);
});

test('a damaged token file: status says so and how to fix it, and a login writes it afresh', async (ctx) => {
  const file = providerTokensPath(ctx.home.home);
  mkdirSync(join(ctx.home.home, 'auth'), { recursive: true });
  writeFileSync(file, '{"providers": {"antigravity": ');
  const status = runCli(['auth', 'status'], ctx.env);
  assert.equal(
    [status.code, status.stderr],
    [
      1,
      `tern: the provider token file cannot be read (${file}: not valid JSON). ` +
        'Run `tern auth login --provider antigravity` to write it afresh.\n',
    ],
  );
  const ended = await loginByPaste(ctx.env, ['--no-browser'], (url) => {
    ctx.google.challenge = url.searchParams.get('code_challenge') ?? '';
    return `http://localhost:51121/auth/callback?state=${url.searchParams.get('state')}&code=${ISSUED.code}`;
  });
  assert.is(ended.code, 0, ended.stderr);
  assert.is(readProviderLogin(ctx.home.home, 'antigravity')!.access_token, ISSUED.access);
});

test('auth without a known provider is a usage error naming the allowed ones', (ctx) => {
  const result = runCli(['auth', 'login', '--provider', 'openai'], ctx.env);
  assert.equal(
    [result.code, result.stderr],
    [2, 'tern: wrong usage (unknown provider "openai"). Allowed: --provider antigravity | github-copilot.\n'],
  );
});

test.run();
