import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readProviderLogin, writeProviderLogin } from '../../store/provider-tokens.js';
import { runCliAsync } from '../support/cli.js';
import { tempHome, type TempHome } from '../support/temp-home.js';
import { ISSUED, PROJECT, REFRESHED, startGoogleFake, type GoogleFake } from './auth-google-fake.js';

const test = suite<{ home: TempHome; google: GoogleFake; env: NodeJS.ProcessEnv }>('antigravity chat turns');
test.before.each(async (ctx) => {
  ctx.home = tempHome();
  ctx.google = await startGoogleFake();
  ctx.env = { ...ctx.home.env, AGENT_TEST_GOOGLE_OAUTH_BASE: ctx.google.url };
  mkdirSync(ctx.home.home, { recursive: true });
  // The peer runtime's own form of the entry: the provider in the model, OAuth as the sign-in.
  const config = {
    version: 2,
    agents: { defaults: { model: 'cloud' } },
    model_list: [
      { model_name: 'cloud', model: 'antigravity/gemini-3-flash', auth_method: 'oauth', api_base: ctx.google.url },
    ],
  };
  writeFileSync(join(ctx.home.home, 'config.json'), JSON.stringify(config));
});
test.after.each(async (ctx) => {
  await ctx.google.close();
  ctx.home.remove();
});

const chats = (google: GoogleFake) => google.requests.filter((r) => r.url.startsWith('/v1internal:streamGenerate'));

test('a turn refreshes a token about to end, then speaks the Cloud Code envelope', async ({ home, google, env }) => {
  writeProviderLogin(home.home, 'antigravity', {
    access_token: 'ya29.nearly-ended',
    refresh_token: ISSUED.refresh,
    expires_at: Date.now() + 60_000,
    email: 'ada@example.com',
    project_id: PROJECT,
  });
  const result = await runCliAsync(['agent', '-m', 'hi there'], env);
  assert.is(result.code, 0, result.stderr);
  assert.is(result.stdout, 'Hello from Cloud Code\n');
  const refresh = google.requests
    .filter((r) => r.url === '/token')
    .map((r) => Object.fromEntries(new URLSearchParams(r.body)));
  assert.equal(
    refresh.map((f) => [f.grant_type, f.refresh_token]),
    [['refresh_token', ISSUED.refresh]],
  );
  const [chat] = chats(google);
  assert.is(chat!.url, '/v1internal:streamGenerateContent?alt=sse');
  assert.is(chat!.headers.authorization, `Bearer ${REFRESHED}`);
  const envelope = JSON.parse(chat!.body) as Record<string, unknown> & { request: { contents: unknown[] } };
  assert.equal(
    [envelope.project, envelope.model, envelope.requestType, envelope.userAgent],
    [PROJECT, 'gemini-3-flash', 'agent', 'antigravity'],
  );
  assert.match(String(envelope.requestId), /^agent-\d+-[0-9a-f]{10}$/);
  // The turn stamps the user's message with the time: only its end is ours.
  const last = envelope.request.contents.at(-1) as { role: string; parts: Array<{ text: string }> };
  assert.equal([last.role, last.parts.length], ['user', 1]);
  assert.match(last.parts[0]!.text, /^\[\d{4}-\d\d-\d\d \d\d:\d\d UTC\] hi there$/);
  const stored = readProviderLogin(home.home, 'antigravity')!;
  assert.equal(
    [stored.access_token, stored.refresh_token, stored.email],
    [REFRESHED, ISSUED.refresh, 'ada@example.com'],
  );
  assert.ok(stored.expires_at! - Date.now() > 3_500_000);
});

test('a token the service refuses (401) is refreshed once and the call made again', async ({ home, google, env }) => {
  writeProviderLogin(home.home, 'antigravity', {
    access_token: 'ya29.revoked-early',
    refresh_token: ISSUED.refresh,
    expires_at: Date.now() + 3_000_000,
    project_id: PROJECT,
  });
  const result = await runCliAsync(['agent', '-m', 'hello'], env);
  assert.is(result.code, 0, result.stderr);
  assert.is(result.stdout, 'Hello from Cloud Code\n');
  assert.equal(
    chats(google).map((r) => r.headers.authorization),
    ['Bearer ya29.revoked-early', `Bearer ${REFRESHED}`],
  );
});

test('a turn without a login fails and names the command that signs in', async ({ env }) => {
  const result = await runCliAsync(['agent', '-m', 'hello'], env);
  assert.is(result.code, 1);
  assert.is(
    result.stdout,
    'Sorry, the model could not be reached: model entry "cloud" (antigravity/gemini-3-flash) without a key: ' +
      'not logged in to antigravity: run `tern auth login --provider antigravity`\n',
  );
});

test('a project not yet known is fetched once (loadCodeAssist) and kept', async ({ home, google, env }) => {
  writeProviderLogin(home.home, 'antigravity', { access_token: ISSUED.access, expires_at: Date.now() + 3_000_000 });
  const result = await runCliAsync(['agent', '-m', 'hello'], env);
  assert.is(result.code, 0, result.stderr);
  assert.equal(
    google.requests.map((r) => r.url),
    ['/v1internal:loadCodeAssist', '/v1internal:streamGenerateContent?alt=sse'],
  );
  assert.is(readProviderLogin(home.home, 'antigravity')!.project_id, PROJECT);
});

test.run();
