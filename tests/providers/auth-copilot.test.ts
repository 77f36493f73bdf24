import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { repoRoot, runCliAsync } from '../support/cli.js';
import { tempHome, type TempHome } from '../support/temp-home.js';
import { COPILOT_ANSWER, startCopilotServer, type CopilotServer } from './auth-copilot-fake.js';

const test = suite<{ home: TempHome; copilot: CopilotServer }>('github-copilot through the Copilot CLI server');
test.before.each(async (ctx) => {
  ctx.home = tempHome();
  mkdirSync(ctx.home.home, { recursive: true });
  ctx.copilot = await startCopilotServer();
});
test.after.each(async (ctx) => {
  await ctx.copilot.close();
  ctx.home.remove();
});

function writeConfig(home: TempHome, entry: Record<string, unknown>, defaults: Record<string, unknown> = {}): void {
  const config = {
    version: 2,
    agents: { defaults: { model: 'copilot', ...defaults } },
    model_list: [{ model_name: 'copilot', provider: 'github-copilot', model: 'gpt-4.1', ...entry }],
  };
  writeFileSync(join(home.home, 'config.json'), JSON.stringify(config));
}

interface Sent {
  model?: string;
  systemMessage?: { mode: string; content: string };
  availableTools?: unknown[];
  prompt?: string;
  sessionId?: string;
}

/** The session the client made, what it sent in it, and that it deleted it: one request of each, in order. */
function checkConversation(calls: Array<{ method: string; params: Sent }>, said: string): void {
  assert.equal(
    calls.map((c) => c.method),
    ['connect', 'session.create', 'session.send', 'session.delete'],
  );
  const create = calls[1]!.params;
  assert.equal([create.model, create.systemMessage?.mode, create.availableTools], ['gpt-4.1', 'replace', []]);
  assert.ok(create.systemMessage!.content.length > 0, 'the system prompt is ours');
  const send = calls[2]!.params;
  assert.is(send.sessionId, 'session-1');
  const prompt = JSON.parse(send.prompt!) as Array<{ role: string; content: string }>;
  assert.is(prompt.at(-1)!.role, 'user');
  assert.ok(prompt.at(-1)!.content.endsWith(said), prompt.at(-1)!.content);
  assert.equal(calls[3]!.params, { sessionId: 'session-1' });
}

test('connect_mode grpc: a turn through a running headless server at api_base (the peer form host:port)', async ({
  home,
  copilot,
}) => {
  writeConfig(home, { api_base: `127.0.0.1:${copilot.port}`, connect_mode: 'grpc' });
  const result = await runCliAsync(['agent', '-m', 'hello copilot'], home.env);
  assert.is(result.code, 0, result.stderr);
  assert.is(result.stdout, `${COPILOT_ANSWER}\n`);
  checkConversation(copilot.calls as Array<{ method: string; params: Sent }>, 'hello copilot');
});

test('connect_mode stdio: the client starts `copilot --headless --stdio` from PATH and talks over its pipes', async ({
  home,
}) => {
  const bin = join(home.home, 'bin');
  mkdirSync(bin);
  const log = join(home.home, 'copilot.log');
  const fake = join(repoRoot, 'tests', 'providers', 'auth-copilot-fake-cli.ts');
  writeFileSync(join(bin, 'copilot'), `#!/bin/sh\nexec "${process.execPath}" --import tsx "${fake}" "$@"\n`);
  chmodSync(join(bin, 'copilot'), 0o755);
  writeConfig(home, { connect_mode: 'stdio' });
  const env = { ...home.env, PATH: `${bin}:${home.env.PATH}`, COPILOT_FAKE_LOG: log };
  const result = await runCliAsync(['agent', '-m', 'over stdio'], env);
  assert.is(result.code, 0, result.stderr);
  assert.is(result.stdout, `${COPILOT_ANSWER}\n`);
  const [started, ...calls] = readFileSync(log, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { argv?: string[]; method: string; params: Sent });
  assert.equal(started!.argv, ['--headless', '--no-auto-update', '--stdio']);
  checkConversation(calls, 'over stdio');
});

test('tern auth login --provider github-copilot asks the server who is signed in', async ({ home, copilot }) => {
  const result = await runCliAsync(
    ['auth', 'login', '--provider', 'github-copilot', '--api-base', `127.0.0.1:${copilot.port}`],
    home.env,
  );
  assert.equal([result.code, result.stdout], [0, 'github-copilot: signed in to the Copilot CLI as octocat\n']);
  assert.equal(
    copilot.calls.map((c) => c.method),
    ['connect', 'auth.getStatus'],
  );
});

test('a server that is not running is a network failure naming how to start it', async ({ home, copilot }) => {
  const port = copilot.port;
  await copilot.close();
  // One attempt: the retries of a refused connection would only repeat this message.
  writeConfig(home, { api_base: `127.0.0.1:${port}` }, { max_llm_retries: 0 });
  const result = await runCliAsync(['agent', '-m', 'hello'], home.env);
  assert.is(result.code, 1);
  assert.match(
    result.stdout,
    `cannot reach the Copilot CLI (127.0.0.1:${port}: connect ECONNREFUSED 127.0.0.1:${port}); ` +
      'start it with `copilot --headless --port 4321`',
  );
});

test.run();
