import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runCli } from '../support/cli.js';
import { everythingEntry } from '../support/mcp-servers.js';
import { tempHome } from '../support/temp-home.js';

test('tern mcp add, list, test, show and remove a stdio server', () => {
  const home = tempHome();
  try {
    const added = runCli(['mcp', 'add', 'everything', '--env', 'GREETING=hi', '--', process.execPath, everythingEntry, 'stdio'], home.env);
    assert.is(added.code, 0, added.stderr);
    assert.is(added.stdout, `added MCP server everything (${join(home.home, 'config.json')})\n`);
    const written = JSON.parse(readFileSync(join(home.home, 'config.json'), 'utf8')) as { tools: { mcp: { servers: unknown } } };
    assert.equal(written.tools.mcp.servers, {
      everything: { enabled: true, command: process.execPath, args: [everythingEntry, 'stdio'], env: { GREETING: 'hi' } },
    });

    const listed = runCli(['mcp', 'list'], home.env);
    assert.is(listed.code, 0, listed.stderr);
    assert.is(listed.stdout, 'everything: enabled no, deferred no, connected no\n');
    assert.match(listed.stderr, 'tools.mcp.enabled is false');

    const tested = runCli(['mcp', 'test', 'everything'], home.env);
    assert.is(tested.code, 0, tested.stderr);
    assert.is(tested.stdout, 'everything: connected over stdio, 13 tools\n');

    const shown = runCli(['mcp', 'show', 'everything', '--json'], home.env);
    const body = JSON.parse(shown.stdout) as { ok: boolean; tools: Array<{ name: string; remote_name: string }> };
    assert.is(body.ok, true);
    assert.equal(body.tools.find((t) => t.remote_name === 'get-sum'), {
      name: 'mcp_everything_get-sum',
      remote_name: 'get-sum',
      description: 'Returns the sum of two numbers',
    });

    const removed = runCli(['mcp', 'remove', 'everything'], home.env);
    assert.is(removed.code, 0, removed.stderr);
    assert.is(runCli(['mcp', 'list'], home.env).stdout, 'No MCP servers are configured (tools.mcp.servers).\n');
  } finally {
    home.remove();
  }
});

const refusals: Array<[string, string[], number, string]> = [
  ['an unknown subcommand', ['mcp', 'frobnicate'], 2, '"frobnicate" is not an mcp subcommand (allowed: list, show, add, remove, test, login)'],
  ['an unknown transport', ['mcp', 'add', 'x', '--type', 'websocket', '--url', 'http://h/mcp'], 2, '--type "websocket" is not a transport (allowed: stdio, sse, http)'],
  ['oauth with an Authorization header', ['mcp', 'add', 'x', 'https://h/mcp', '--oauth', '--header', 'Authorization=Bearer t'], 1, 'cannot be combined with an Authorization header'],
  ['removing an unknown server', ['mcp', 'remove', 'ghost'], 1, 'no MCP server named "ghost" (configured: none)'],
  ['testing an unknown server', ['mcp', 'test', 'ghost'], 1, 'no MCP server named "ghost"'],
  ['a server that cannot start', ['mcp', 'add', 'x', '--', 'tern-no-such-binary'], 0, ''],
];

test('tern mcp refuses bad input with the field and the allowed values', () => {
  const home = tempHome();
  try {
    for (const [what, args, code, message] of refusals) {
      const result = runCli(args, home.env);
      assert.is(result.code, code, `${what}: ${result.stderr}`);
      assert.ok(result.stderr.includes(message), `${what}: ${result.stderr}`);
    }
    const broken = runCli(['mcp', 'test', 'x'], home.env);
    assert.is(broken.code, 1);
    assert.match(broken.stderr, /^tern: MCP server x did not connect \(spawn tern-no-such-binary ENOENT/);
  } finally {
    home.remove();
  }
});

test.run();
