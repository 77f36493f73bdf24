import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { repoRoot, runCliAsync, ternEntry } from '../support/cli.js';
import { tempHome, type TempHome } from '../support/temp-home.js';
import { writeConfig } from '../support/turn-fixture.js';
import { completion } from '../support/vendor-chat-completions.js';
import { startVendorServer, type VendorServer } from '../support/vendor-server.js';

const tern = runCliAsync;

const test = suite<{ home: TempHome; vendor: VendorServer }>('tern agent and tern replay');
test.before.each(async (ctx) => {
  ctx.home = tempHome();
  ctx.vendor = await startVendorServer();
  writeConfig(ctx.home.home, ctx.vendor.url);
});
test.after.each(async (ctx) => {
  await ctx.vendor.close();
  ctx.home.remove();
});

test('agent -m prints the reply and exits 0', async ({ home, vendor }) => {
  vendor.reply(completion({ content: 'Hello from the model.' }));
  assert.equal(await tern(['agent', '-m', 'hi'], home.env), { code: 0, stdout: 'Hello from the model.\n', stderr: '' });
});

test('agent -m --json prints the turn as JSON lines, ending with the reply', async ({ home, vendor }) => {
  vendor.reply(completion({ content: 'Hi.' }));
  const { code, stdout } = await tern(['agent', '-m', 'hi', '--json'], home.env);
  assert.is(code, 0);
  const events = stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { type: string; data: { reply?: string } });
  const types = events.map((e) => e.type).filter((t) => !t.startsWith('actor.'));
  assert.equal(types, [
    'message.routed',
    'turn.started',
    'prompt.built',
    'provider.requested',
    'provider.responded',
    'turn.completed',
    'reply.requested',
  ]);
  assert.is(events.find((e) => e.type === 'turn.completed')?.data.reply, 'Hi.');
});

test('a failed turn exits 1 and says why', async ({ home, vendor }) => {
  vendor.reply({
    status: 401,
    headers: { 'content-type': 'application/json' },
    chunks: [
      JSON.stringify({
        error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' },
      }),
    ],
  });
  const { code, stdout } = await tern(['agent', '-m', 'hi'], home.env);
  assert.is(code, 1);
  assert.match(
    stdout,
    new RegExp(
      /^Sorry, the model could not be reached: model entry "fast" \(openai\/gpt-test\) /.source +
        /key 1 of 1 \(sk-t…01\) was refused/.source,
    ),
  );
});

test('a vendor error that quotes the key prints it masked, on stdout and in --json events', async ({
  home,
  vendor,
}) => {
  const key = 'sk-test-key-0001';
  const quoting = () =>
    vendor.reply({
      status: 401,
      headers: { 'content-type': 'application/json' },
      chunks: [JSON.stringify({ error: { message: `Incorrect API key provided: ${key}.` } })],
    });
  quoting();
  const plain = await tern(['agent', '-m', 'hi'], home.env);
  assert.is(plain.code, 1);
  assert.match(plain.stdout, 'HTTP 401: Incorrect API key provided: sk-t…01.');
  quoting();
  const json = await tern(['agent', '-m', 'hi', '--json'], home.env);
  assert.match(json.stdout, '"type":"provider.failed"');
  for (const out of [plain.stdout, json.stdout]) assert.not.match(out, key);
});

test('--model with an unknown name is an error naming the known ones', async ({ home }) => {
  const { code, stderr } = await tern(['agent', '-m', 'hi', '--model', 'huge'], home.env);
  assert.is(code, 1);
  assert.is(
    stderr,
    'tern: no model named "huge" (model_list has: fast). Pick one of those with --model, or add it to model_list.\n',
  );
});

test("--model wins over an agent's own agents.list model", async ({ home, vendor }) => {
  writeConfig(home.home, vendor.url, { models: [{ model_name: 'other', model: 'gpt-other' }] });
  const path = join(home.home, 'config.json');
  const config = JSON.parse(readFileSync(path, 'utf8')) as { agents: Record<string, unknown> };
  config.agents.list = [{ id: 'main', model: 'other' }];
  writeFileSync(path, JSON.stringify(config));
  vendor.reply(completion({ content: 'ok' }), completion({ content: 'ok' }));
  assert.is((await tern(['agent', '-m', 'hi'], home.env)).code, 0);
  assert.is((await tern(['agent', '-m', 'hi', '--model', 'fast'], home.env)).code, 0);
  assert.equal(
    vendor.requests.map((r) => (JSON.parse(r.body.toString()) as { model: string }).model),
    ['gpt-other', 'gpt-test'],
  );
});

test('with no model configured, agent says so and how to add one', async ({ home }) => {
  writeFileSync(join(home.home, 'config.json'), JSON.stringify({ version: 2 }));
  const { code, stdout, stderr } = await tern(['agent', '-m', 'hi'], home.env);
  assert.equal([code, stdout], [1, '']);
  assert.match(
    stderr,
    new RegExp(
      /^tern: no model to talk to \(model_list in .*config\.json has no enabled entry\)\. /.source +
        /Add one, e\.g\. \{"model_name": "fast"/.source,
    ),
  );
});

test('--script runs the turns in one session and exits 1 when an expectation fails', async ({ home, vendor }) => {
  const script = join(home.home, 'turns.yaml');
  writeFileSync(
    script,
    'session: demo\nturns:\n  - user: "write hello"\n    expect: { contains: "hello.txt" }\n' +
      '  - user: "again"\n    expect: { matches: "^Sure" }\n',
  );
  vendor.reply(completion({ content: 'Wrote hello.txt.' }), completion({ content: 'No.' }));
  const { code, stdout, stderr } = await tern(['agent', '--script', script], home.env);
  assert.is(code, 1);
  assert.is(
    stdout,
    '> write hello\nWrote hello.txt.\n✓ turn 1\n> again\nNo.\n✗ turn 2: reply does not match /^Sure/\n',
  );
  assert.is(stderr, 'tern: 1 of 2 expectations failed\n');
  const second = JSON.parse(vendor.requests[1]!.body.toString()) as { messages: Array<{ content: string }> };
  // The history as it was said; only the newest message carries the time, which would change the prefix every minute.
  const [said, replied, newest] = second.messages.slice(1).map((m) => m.content);
  assert.equal([said, replied], ['write hello', 'Wrote hello.txt.']);
  assert.match(newest!, /^\[\d{4}-\d\d-\d\d \d\d:\d\d UTC\] again$/);
});

test('an invalid script names the field', async ({ home }) => {
  const script = join(home.home, 'bad.yaml');
  writeFileSync(script, 'turns:\n  - usr: "typo"\n');
  const { code, stderr } = await tern(['agent', '--script', script], home.env);
  assert.is(code, 1);
  assert.match(stderr, /^tern: the script .*bad\.yaml is invalid \(turns\.0\.user: .*\)/);
});

test('a script expectation JavaScript cannot compile is one usage line, before any turn runs (exit 2)', async ({
  home,
  vendor,
}) => {
  const script = join(home.home, 'sunny.yaml');
  writeFileSync(script, 'turns:\n  - user: "weather?"\n    expect: { matches: "(?i)sunny" }\n');
  const { code, stdout, stderr } = await tern(['agent', '--script', script], home.env);
  assert.equal(
    { code, stdout, stderr },
    {
      code: 2,
      stdout: '',
      stderr:
        'tern: wrong usage (turns[0].expect.matches "(?i)sunny" is not a JavaScript regular expression ' +
        '(Invalid group; JavaScript has no inline flags such as (?i))). Run `tern help agent`.\n',
    },
  );
  assert.is(vendor.requests.length, 0);
});

test('an unknown flag is one usage line naming it, with the closest option and `tern help agent` (exit 2)', async ({
  home,
}) => {
  assert.equal(await tern(['agent', '--mesage', 'hi'], home.env), {
    code: 2,
    stdout: '',
    stderr: 'tern: wrong usage (tern agent has no option --mesage (did you mean --message?)). Run `tern help agent`.\n',
  });
});

test('replay prints the timeline of a turn and --rerun says identical', async ({ home, vendor }) => {
  vendor.reply(completion({ content: 'Replayable.' }));
  const turnLine = (await tern(['agent', '-m', 'hi', '--json'], home.env)).stdout
    .split('\n')
    .find((l) => l.includes('"turn.completed"'))!;
  const turn = (JSON.parse(turnLine) as { turn: string }).turn;
  const timeline = await tern(['replay', turn], home.env);
  assert.is(timeline.code, 0);
  assert.match(timeline.stdout, /^\+ +0 ms  turn\.started +cli direct:default said: hi\n/);
  assert.match(timeline.stdout, /\n\+ +\d+ ms  provider\.requested +model fast, call 1, 1 messages\n/);
  assert.match(timeline.stdout, /\n\+ +\d+ ms  turn\.completed +reply: Replayable\.\n/);
  assert.equal(await tern(['replay', turn, '--rerun'], home.env), { code: 0, stdout: 'identical\n', stderr: '' });
  const missing = await tern(['replay', 't_nope'], home.env);
  assert.is(missing.code, 1);
  assert.match(missing.stderr, /^tern: no turn t_nope \(the log has no event for it\)/);
});

test(
  'agent -m cannot ask for approval: ' +
    'a call that needs it is denied at once, the model is told and stderr says why',
  async ({ home, vendor }) => {
    writeConfig(home.home, vendor.url, { tools: { exec: { require_approval: true } } });
    const call = {
      id: 'c1',
      type: 'function' as const,
      function: { name: 'exec', arguments: JSON.stringify({ command: 'echo nope' }) },
    };
    vendor.reply(completion({ tool_calls: [call] }, 'tool_calls'), completion({ content: 'I could not run it.' }));
    const started = Date.now();
    const { code, stdout, stderr } = await tern(['agent', '-m', 'run echo nope'], home.env);
    assert.equal(
      { code, stdout, stderr },
      {
        code: 0,
        stdout: 'I could not run it.\n',
        stderr: 'tern: exec wants to run `echo nope`; denied (tern agent -m and --script cannot ask for approval)\n',
      },
    );
    assert.ok(Date.now() - started < 30_000, 'it did not wait for the 60 s approval timeout');
    const tool = (
      JSON.parse(vendor.requests[1]!.body.toString()) as { messages: Array<{ content: string }> }
    ).messages.at(-1);
    assert.is(
      tool?.content,
      'Tool call not approved: tern agent -m and --script cannot ask; ' +
        'run `tern agent` for a chat, or talk through a channel',
    );
  },
);

test('interactive agent asks Approve? [y/N] for a call that needs it, and y runs it', async ({ home, vendor }) => {
  writeConfig(home.home, vendor.url, { tools: { exec: { require_approval: true } } });
  const call = {
    id: 'c1',
    type: 'function' as const,
    function: { name: 'exec', arguments: JSON.stringify({ command: 'echo yes-ran' }) },
  };
  vendor.reply(completion({ tool_calls: [call] }, 'tool_calls'), completion({ content: 'Done it.' }));
  const child = spawn(process.execPath, [...ternEntry, 'agent'], { cwd: repoRoot, env: home.env });
  let stdout = '';
  const seen = (text: string) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`never printed ${JSON.stringify(text)}; got ${JSON.stringify(stdout)}`)),
        20_000,
      );
      const look = () => {
        if (!stdout.includes(text)) return;
        clearTimeout(timer);
        child.stdout.off('data', look);
        resolve();
      };
      child.stdout.on('data', look);
      look();
    });
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  await seen('you> ');
  child.stdin.write('run echo yes-ran\n');
  await seen('exec wants to run `echo yes-ran`. Approve? [y/N] ');
  child.stdin.write('y\n');
  await seen('tern> Done it.');
  child.stdin.end();
  assert.is(await exited, 0);
  const tool = (
    JSON.parse(vendor.requests[1]!.body.toString()) as { messages: Array<{ content: string }> }
  ).messages.at(-1);
  assert.is(tool?.content, 'yes-ran\n');
  assert.match(stdout, 'tern> Approved: exec goes ahead.');
});

test.run();
