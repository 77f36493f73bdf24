// Piped input (#35 item 3) and MCP servers before a one-shot turn (item 6).
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { logged, runningCli } from '../support/cli-turns.js';
import { killTagged, straysTagged } from '../support/exec-attacks.js';
import { everythingEntry } from '../support/mcp-servers.js';
import { tempHome, type TempHome } from '../support/temp-home.js';
import { writeConfig } from '../support/turn-fixture.js';
import { completion } from '../support/vendor-chat-completions.js';
import { startVendorServer, type RecordedRequest, type VendorServer } from '../support/vendor-server.js';

const test = suite<{ home: TempHome; vendor: VendorServer }>(
  'tern agent: piped input, MCP servers before the first turn',
);
test.before.each(async (ctx) => {
  ctx.home = tempHome();
  ctx.vendor = await startVendorServer();
  writeConfig(ctx.home.home, ctx.vendor.url);
});
test.after.each(async (ctx) => {
  await ctx.vendor.close();
  ctx.home.remove();
});

type Body = { messages: Array<{ role: string; content: string }>; tools?: Array<{ function: { name: string } }> };
const body = (request: RecordedRequest): Body => JSON.parse(request.body.toString()) as Body;
/** The user's text of a request (the newest message carries the time in front). */
const said = (request: RecordedRequest): string =>
  body(request)
    .messages.at(-1)!
    .content.replace(/^\[[^\]]*\] /, '');
const words = ['one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten'];

/** The everything MCP server as `every`, its process tagged so the test can find it. */
function withEverything(home: TempHome, vendor: VendorServer, tag: string, extra: Record<string, unknown> = {}): void {
  const servers = {
    every: { enabled: true, command: process.execPath, args: [everythingEntry, 'stdio', tag] },
    ...extra,
  };
  writeConfig(home.home, vendor.url, { tools: { mcp: { enabled: true, servers } } });
}

test('every piped line is a turn, in order; the end of input ends after the last answer with exit 0', async ({
  home,
  vendor,
}) => {
  vendor.reply(...words.map((w) => completion({ content: `answer ${w}` })));
  const cli = runningCli(['agent'], home.env);
  cli.child.stdin.end(`${words.join('\n')}\n`);
  const { code } = await cli.ended;
  assert.is(code, 0, cli.stderr());
  assert.equal(vendor.requests.map(said), words);
  assert.equal(
    cli.stdout().match(/tern> .*/g),
    words.map((w) => `tern> answer ${w}`),
  );
});

test('at the end of piped input the MCP servers are stopped and the process ends (exit 0)', async ({
  home,
  vendor,
}) => {
  const tag = 'tern-test-mcp-piped';
  withEverything(home, vendor, tag);
  vendor.reply(completion({ content: 'ok' }), completion({ content: 'ok again' }));
  const cli = runningCli(['agent'], home.env);
  // The second line arrives while the first turn runs: the old chat lost it and then waited for good.
  cli.child.stdin.end('hello\nagain\n');
  try {
    const { code } = await cli.ended;
    assert.is(code, 0, cli.stderr());
    assert.equal(cli.stdout().match(/tern> .*/g), ['tern> ok', 'tern> ok again']);
    assert.equal(straysTagged(tag), []);
  } finally {
    cli.child.kill('SIGKILL');
    killTagged(tag);
  }
});

test('SIGTERM ends a chat waiting for input that never ends (exit 143)', async ({ home }) => {
  const cli = runningCli(['agent'], home.env);
  await cli.shows('you> ');
  cli.child.kill('SIGTERM');
  assert.is((await cli.ended).code, 143);
});

test('a one-shot turn waits for the MCP servers: the first model call is offered their tools', async ({
  home,
  vendor,
}) => {
  const tag = 'tern-test-mcp-oneshot';
  withEverything(home, vendor, tag);
  vendor.reply(completion({ content: 'ok' }));
  const cli = runningCli(['agent', '-m', 'use mcp_every_echo'], home.env);
  try {
    assert.is((await cli.ended).code, 0, cli.stderr());
    const tools = body(vendor.requests[0]!).tools?.map((t) => t.function.name) ?? [];
    assert.ok(tools.includes('mcp_every_echo'), `offered: ${tools.join(', ')}`);
    assert.is(cli.stderr(), '');
  } finally {
    killTagged(tag);
  }
});

test('a server that fails to connect is named on stderr, and the turn runs without it', async ({ home, vendor }) => {
  const tag = 'tern-test-mcp-broken';
  withEverything(home, vendor, tag, { broken: { enabled: true, command: join(home.home, 'no-such-server') } });
  vendor.reply(completion({ content: 'ok' }));
  const cli = runningCli(['agent', '-m', 'hi'], home.env);
  try {
    assert.is((await cli.ended).code, 0, cli.stderr());
    assert.match(
      cli.stderr(),
      /^tern: warning: MCP server "broken" failed to connect \(.*no-such-server.*\); its tools are not offered\n$/,
      `stderr was: ${JSON.stringify(cli.stderr())}`,
    );
    assert.is(cli.stdout(), 'ok\n');
    assert.equal([...new Set(logged(home.env, 'mcp.connected').map((e) => e.data.server))], ['every']);
  } finally {
    killTagged(tag);
  }
});

test('tools.mcp.connect_timeout_seconds bounds the wait: a server still connecting is named', async ({
  home,
  vendor,
}) => {
  // A "server" that starts and never speaks MCP: it is still connecting when the wait ends.
  const silent = {
    enabled: true,
    command: process.execPath,
    args: ['-e', 'setTimeout(() => {}, 60000)', 'tern-test-silent'],
  };
  writeConfig(home.home, vendor.url, {
    tools: { mcp: { enabled: true, connect_timeout_seconds: 1, servers: { silent } } },
  });
  vendor.reply(completion({ content: 'ok' }));
  const started = Date.now();
  const cli = runningCli(['agent', '-m', 'hi'], home.env);
  try {
    assert.is((await cli.ended).code, 0, cli.stderr());
    assert.is(
      cli.stderr(),
      'tern: warning: MCP server "silent" did not connect within 1 s ' +
        '(tools.mcp.connect_timeout_seconds); its tools are not offered\n',
    );
    assert.ok(Date.now() - started < 20_000);
  } finally {
    killTagged('tern-test-silent');
  }
});

test.run();
