import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import { sessionIdOf } from '../../bus/index.js';
import { runCliAsync } from '../support/cli.js';
import { writeConfig } from '../support/turn-fixture.js';
import { completion } from '../support/vendor-chat-completions.js';
import { builtHomeSuite } from '../support/vendor-suite.js';

const tern = runCliAsync;

const KEY = 'v=1|agent=main|channel=cli|account=default|chat=direct:tooltest';
const ID = sessionIdOf(KEY);

const sessionsIn = (stdout: string): string[] =>
  [
    ...new Set(
      stdout
        .trim()
        .split('\n')
        .map((line) => (JSON.parse(line) as { session?: string }).session),
    ),
  ].filter((s) => s !== undefined);

const test = builtHomeSuite('sessions by the key users type', async (ctx) => {
  writeConfig(ctx.home.home, ctx.vendor.url, { defaults: {} });
  ctx.vendor.reply(completion({ content: 'one' }), completion({ content: 'two' }), completion({ content: 'three' }));
  assert.is((await tern(['agent', '-m', 'hi', '--session', 'tooltest'], ctx.home.env)).code, 0);
  assert.is((await tern(['agent', '-m', 'hi', '--session', 'other'], ctx.home.env)).code, 0);
});

test('--session takes the key given to tern agent, the full key, the id and a unique prefix of it', async ({
  home,
}) => {
  for (const named of ['tooltest', KEY, ID, ID.slice(0, 12)]) {
    const result = await tern(['log', '--json', '--session', named], home.env);
    assert.is(result.code, 0, `${named}: ${result.stderr}`);
    assert.equal(sessionsIn(result.stdout), [ID], named);
  }
});

test('a session id as tern log prints it pastes back into --session', async ({ home }) => {
  const lines = (await tern(['log', '--type', 'turn.started'], home.env)).stdout.trim().split('\n');
  assert.is(lines.length, 2);
  const printed = lines.map((line) => line.trim().split(/\s+/)[4]!);
  for (const id of printed) {
    assert.ok(id.startsWith('sk_v1_') && !id.includes('…'), id);
    const back = await tern(['log', '--json', '--session', id], home.env);
    assert.equal([back.code, sessionsIn(back.stdout).length, sessionsIn(back.stdout)[0]!.startsWith(id)], [0, 1, true]);
  }
});

test('a key that names no session is an error listing the sessions, not an empty answer', async ({ home }) => {
  const result = await tern(['log', '--session', 'toltest'], home.env);
  assert.is(result.code, 1);
  assert.is(result.stdout, '');
  assert.match(
    result.stderr,
    new RegExp(
      /^tern: no session "toltest" \(the log has 2: /.source +
        /v=1\|agent=main\|channel=cli\|account=default\|chat=direct:(tooltest|other) \(sk_v1_[0-9a-f]{8}…\); /.source +
        /.*\)\. Name it by the key given to `tern agent --session`/.source,
    ),
  );
});

test('a key two agents share is ambiguous and says which sessions it could be', async ({ home, vendor }) => {
  writeFileSync(
    join(home.home, 'config.json'),
    JSON.stringify({
      version: 2,
      agents: { defaults: { model: 'fast' }, list: [{ id: 'main', default: true }, { id: 'helper' }] },
      model_list: [
        {
          model_name: 'fast',
          provider: 'openai',
          model: 'gpt-test',
          api_base: `${vendor.url}/v1`,
          api_keys: ['sk-test-key-0001'],
        },
      ],
    }),
  );
  vendor.reply(completion({ content: 'helped' }));
  assert.is((await tern(['agent', '-m', 'hi', '--agent', 'helper', '--session', 'tooltest'], home.env)).code, 0);
  const result = await tern(['log', '--session', 'tooltest'], home.env);
  assert.is(result.code, 1);
  assert.match(
    result.stderr,
    new RegExp(
      /^tern: "tooltest" names 2 sessions \(v=1\|agent=(helper|main)\|.*chat=direct:tooltest .*; /.source +
        /v=1\|agent=(helper|main)\|.*\)\. Give the full key or more of the sk_v1_ id\.\n$/.source,
    ),
  );
  const helper = await tern(
    ['log', '--json', '--session', 'v=1|agent=helper|channel=cli|account=default|chat=direct:tooltest'],
    home.env,
  );
  assert.equal(sessionsIn(helper.stdout), [
    sessionIdOf('v=1|agent=helper|channel=cli|account=default|chat=direct:tooltest'),
  ]);
});

test.run();
