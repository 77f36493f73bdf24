// The CLI as a client of a running gateway (#35 item 5): `tern agent` and the commands that hand their work over run
// in the gateway (the one writer of the log) over its control socket in AGENT_HOME.
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { gatewayHost } from '../../adapters/cli/launcher-host/gateway-host.js';
import { runCliAsync } from '../support/cli.js';
import { heldReply, logged, runningCli } from '../support/cli-turns.js';
import { screenLines, ternOnTerminal } from '../support/pty.js';
import { modelEntry, startGatewayProcess, type GatewayProcess } from '../support/gateway-process.js';
import { freePort } from '../support/mcp-servers.js';
import { completion } from '../support/vendor-chat-completions.js';
import { startVendorServer, type VendorServer } from '../support/vendor-server.js';

const tern = runCliAsync;

/** A gateway on a fresh home, once its control socket is served (it says `gateway: serving` after that). */
async function servingGateway(vendor: VendorServer): Promise<GatewayProcess> {
  const gateway = await startGatewayProcess({
    gateway: { port: await freePort() },
    agents: { defaults: { model: 'fast' } },
    model_list: [modelEntry(vendor.url)],
  });
  let output = '';
  await new Promise<void>((resolve) => {
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      if (!output.includes('gateway: serving')) return;
      gateway.child.stdout.off('data', onData);
      resolve();
    };
    gateway.child.stdout.on('data', onData);
  });
  return gateway;
}

// One gateway for the suite (each start costs seconds on a busy machine); each test reads only its own events.
const test = suite<{ vendor: VendorServer; gateway: GatewayProcess }>('the CLI hands its work to a running gateway');
test.before(async (ctx) => {
  ctx.vendor = await startVendorServer();
  ctx.gateway = await servingGateway(ctx.vendor);
});
test.before.each(({ vendor }) => vendor.reset());
test.after(async (ctx) => {
  await ctx.gateway.stop().catch(() => undefined);
  await ctx.vendor.close();
  ctx.gateway.home.remove();
});

const paths = (gateway: GatewayProcess) => ({
  socket: join(gateway.home.home, 'gateway.sock'),
  token: join(gateway.home.home, 'gateway.token'),
});

test(
  'agent -m runs its turn in the gateway: ' + 'the reply is printed and the turn is in the log the gateway writes',
  async ({ vendor, gateway }) => {
    vendor.reply(completion({ content: 'Hello from the gateway.' }));
    assert.equal(await tern(['agent', '-m', 'hi'], gateway.home.env), {
      code: 0,
      stdout: 'Hello from the gateway.\n',
      stderr: '',
    });
    assert.ok(logged(gateway.home.env, 'turn.completed').some((e) => e.data.reply === 'Hello from the gateway.'));
    assert.equal(
      logged(gateway.home.env, 'runtime.started').map((e) => e.data.command),
      ['gateway'],
      'the CLI opened no log of its own',
    );
  },
);

test("--json streams the turn's events from the gateway, as a turn run here prints them", async ({
  vendor,
  gateway,
}) => {
  vendor.reply(completion({ content: 'Hi.' }));
  const { code, stdout } = await tern(['agent', '-m', 'hi', '--json'], gateway.home.env);
  assert.is(code, 0);
  const types = stdout
    .trim()
    .split('\n')
    .map((l) => (JSON.parse(l) as { type: string }).type)
    .filter((t) => !t.startsWith('actor.'));
  assert.equal(types, [
    'message.routed',
    'turn.started',
    'prompt.built',
    'provider.requested',
    'provider.responded',
    'turn.completed',
    'reply.requested',
  ]);
});

test('piped chat lines run in the gateway, one turn each, in order, in one session', async ({ vendor, gateway }) => {
  vendor.reply(completion({ content: 'first answer' }), completion({ content: 'second answer' }));
  const cli = runningCli(['agent', '--session', 'piped'], gateway.home.env);
  cli.child.stdin.end('one\ntwo\n');
  assert.is((await cli.ended).code, 0, cli.stderr());
  assert.equal(cli.stdout().match(/tern> .*/g), ['tern> first answer', 'tern> second answer']);
  const answers = logged(gateway.home.env, 'turn.completed').filter((e) => String(e.data.reply).endsWith(' answer'));
  assert.is(new Set(answers.map((e) => (e as { session?: string }).session)).size, 1);
});

test('--script runs its turns in the gateway and checks them as it would here (exit 1 on a miss)', async (ctx) => {
  const { vendor, gateway } = ctx;
  const script = join(gateway.home.home, 'turns.yaml');
  const turns =
    '  - user: "write hello"\n    expect: { contains: "hello.txt" }\n' +
    '  - user: "again"\n    expect: { matches: "^Sure" }\n';
  writeFileSync(script, `session: scripted\nturns:\n${turns}`);
  vendor.reply(completion({ content: 'Wrote hello.txt.' }), completion({ content: 'No.' }));
  const { code, stdout, stderr } = await tern(['agent', '--script', script], gateway.home.env);
  assert.equal(
    { code, stdout, stderr },
    {
      code: 1,
      stdout: '> write hello\nWrote hello.txt.\n✓ turn 1\n> again\nNo.\n✗ turn 2: reply does not match /^Sure/\n',
      stderr: 'tern: 1 of 2 expectations failed\n',
    },
  );
  const replies = logged(gateway.home.env, 'turn.completed').map((e) => e.data.reply);
  assert.ok(replies.includes('Wrote hello.txt.') && replies.includes('No.'), 'the gateway ran both turns');
});

test('Ctrl-C aborts the turn in the gateway (exit 130), and the session answers the next message', async ({
  vendor,
  gateway,
}) => {
  const held = heldReply();
  vendor.reply(held.reply, completion({ content: 'Still here.' }));
  const cli = runningCli(['agent', '-m', 'a long one'], gateway.home.env);
  await held.requested;
  const sentAt = Date.now();
  cli.child.kill('SIGINT');
  assert.equal([(await cli.ended).code, cli.stdout()], [130, '[stopped]\n']);
  const [aborted] = logged(gateway.home.env, 'turn.aborted');
  assert.is(aborted?.data.reason, 'interrupted (Ctrl-C in tern agent)');
  // The model never answers: any abort is the signal's. The bound leaves a loaded CI room to schedule the process
  // (the abort itself takes milliseconds); without the signal the turn would wait for the model for good.
  assert.ok(aborted!.at - sentAt < 5000, `turn.aborted came ${aborted!.at - sentAt} ms after the signal`);
  assert.equal(await tern(['agent', '-m', 'are you there?'], gateway.home.env), {
    code: 0,
    stdout: 'Still here.\n',
    stderr: '',
  });
});

test('Ctrl-C in the chat on a terminal aborts the turn in the gateway, shows it stopped, exits 130', async (ctx) => {
  const { vendor, gateway } = ctx;
  const before = logged(gateway.home.env, 'turn.aborted').length;
  const held = heldReply();
  vendor.reply(held.reply);
  const typed = ['hi\r', { after: 'waiting for fast', type: '\x03' }];
  const { code, raw } = await ternOnTerminal(['agent', '--session', 'tty'], gateway.home.env, typed);
  assert.is(code, 130, raw);
  assert.ok(screenLines(raw).includes('tern> [stopped]'), raw);
  assert.is(logged(gateway.home.env, 'turn.aborted').length, before + 1);
});

test('tool list and cron add run in the gateway: its tools (it can send to chats), its cron store', async ({
  gateway,
}) => {
  const tools = await tern(['tool', 'list', '--json'], gateway.home.env);
  assert.is(tools.code, 0, tools.stderr);
  const names = (JSON.parse(tools.stdout) as { tools: Array<{ name: string }> }).tools.map((t) => t.name);
  assert.ok(names.includes('message'), `the gateway's turns can message a chat: ${names.join(', ')}`);
  const added = await tern(
    ['cron', 'add', '--every', '1h', '--deliver', 'ping', '--channel', 'telegram', '--chat', 'direct:1', '--json'],
    gateway.home.env,
  );
  assert.is(added.code, 0, added.stderr);
  const listed = await tern(['cron', 'list', '--json'], gateway.home.env);
  assert.equal(
    (JSON.parse(listed.stdout) as { jobs: Array<{ name: string }> }).jobs.map((j) => j.name),
    ['ping'],
  );
});

test('the socket and its token are owner-only, and a client without the token is refused', async ({ gateway }) => {
  const { socket, token } = paths(gateway);
  assert.equal([statSync(socket).mode & 0o777, statSync(token).mode & 0o777], [0o600, 0o600]);
  const answer = await new Promise<string>((resolve) => {
    const client = connect(socket, () =>
      client.write(`${JSON.stringify({ type: 'hello', token: 'guess', protocol: 1 })}\n`),
    );
    let text = '';
    client.on('data', (chunk) => (text += chunk.toString()));
    client.on('close', () => resolve(text));
  });
  assert.equal(JSON.parse(answer), {
    type: 'refused',
    code: 'unauthorized',
    message: 'the token does not match gateway.token',
  });
  assert.ok(JSON.parse(readFileSync(token, 'utf8')).token.length >= 64);
});

test("a gateway on another config file of the same home is not this CLI's: it runs the turn itself", async ({
  vendor,
  gateway,
}) => {
  const other = join(gateway.home.home, 'other.json');
  writeFileSync(
    other,
    JSON.stringify({
      version: 2,
      agents: { defaults: { model: 'fast', workspace: join(gateway.home.home, 'ws2') } },
      model_list: [modelEntry(vendor.url)],
    }),
  );
  vendor.reply(completion({ content: 'From elsewhere.' }));
  assert.equal(await tern(['agent', '-m', 'hi'], { ...gateway.home.env, AGENT_CONFIG: other }), {
    code: 0,
    stdout: 'From elsewhere.\n',
    stderr: '',
  });
});

test('the dashboard finds the running gateway the same way, and names it when it cannot run its own', async ({
  gateway,
}) => {
  const host = gatewayHost(gateway.home.env);
  try {
    const status = await host.start();
    assert.is(status.state, 'stopped');
    assert.is(
      host.lastError(),
      `a gateway already runs on this AGENT_HOME (process ${gateway.child.pid}, ` +
        'tern gateway): stop it to run the gateway from the dashboard',
    );
  } finally {
    await host.close();
  }
});

test.run();

const stale = suite('a gateway that was killed');

stale('a socket a killed gateway left behind is removed, and the CLI runs the turn itself', async () => {
  const vendor = await startVendorServer();
  const gateway = await servingGateway(vendor);
  try {
    await gateway.kill();
    const { socket } = paths(gateway);
    assert.ok(existsSync(socket), 'kill -9 leaves the socket file');
    vendor.reply(completion({ content: 'Here instead.' }));
    assert.equal(await tern(['agent', '-m', 'hi'], gateway.home.env), {
      code: 0,
      stdout: 'Here instead.\n',
      stderr: '',
    });
    assert.not.ok(existsSync(socket));
    assert.equal(
      logged(gateway.home.env, 'runtime.started').map((e) => e.data.command),
      ['gateway', 'agent'],
    );
  } finally {
    await vendor.close();
    gateway.home.remove();
  }
});

stale.run();
