import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { parseArgs } from 'node:util';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { commands } from '../../adapters/cli/commands/index.js';
import type { OptionValues } from '../../adapters/cli/command.js';
import { CliError } from '../../adapters/cli/errors.js';
import { runCli } from '../support/cli.js';
import { everythingEntry } from '../support/mcp-servers.js';
import { tempHome } from '../support/temp-home.js';

test('tern mcp add, list, test, show and remove a stdio server', () => {
  const home = tempHome();
  try {
    const added = runCli(
      ['mcp', 'add', 'everything', '--env', 'GREETING=hi', '--', process.execPath, everythingEntry, 'stdio'],
      home.env,
    );
    assert.is(added.code, 0, added.stderr);
    assert.is(added.stdout, `added MCP server everything (${join(home.home, 'config.json')})\n`);
    const written = JSON.parse(readFileSync(join(home.home, 'config.json'), 'utf8')) as {
      tools: { mcp: { servers: unknown } };
    };
    assert.equal(written.tools.mcp.servers, {
      everything: {
        enabled: true,
        command: process.execPath,
        args: [everythingEntry, 'stdio'],
        env: { GREETING: 'hi' },
      },
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
    assert.equal(
      body.tools.find((t) => t.remote_name === 'get-sum'),
      {
        name: 'mcp_everything_get-sum',
        remote_name: 'get-sum',
        description: 'Returns the sum of two numbers',
      },
    );

    const removed = runCli(['mcp', 'remove', 'everything'], home.env);
    assert.is(removed.code, 0, removed.stderr);
    assert.is(runCli(['mcp', 'list'], home.env).stdout, 'No MCP servers are configured (tools.mcp.servers).\n');
  } finally {
    home.remove();
  }
});

const refusals: Array<[string, string[], number, string]> = [
  [
    'an unknown transport',
    ['add', 'x', '--type', 'websocket', '--url', 'http://h/mcp'],
    2,
    '--type "websocket" is not a transport (allowed: stdio, sse, http)',
  ],
  [
    'a header without =',
    ['add', 'x', 'https://h/mcp', '--header', 'Authorization'],
    2,
    '--header "Authorization" is not KEY=VALUE',
  ],
  [
    'oauth with an Authorization header',
    ['add', 'x', 'https://h/mcp', '--oauth', '--header', 'Authorization=Bearer t'],
    1,
    'cannot be combined with an Authorization header',
  ],
  ['removing an unknown server', ['remove', 'ghost'], 1, 'no MCP server named "ghost" (configured: local, broken)'],
  ['testing an unknown server', ['test', 'ghost'], 1, 'no MCP server named "ghost"'],
  [
    'logging in to a server without oauth',
    ['login', 'local'],
    1,
    'server local has no oauth block (allowed: a remote sse or http server with oauth: {})',
  ],
  [
    'a server that cannot start',
    ['test', 'broken'],
    1,
    'MCP server broken did not connect (spawn tern-no-such-binary ENOENT',
  ],
];

/** The command module as the front door runs it: parsed options in, a CliError (exit code, one line) out. */
async function runMcp(argv: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; message: string }> {
  const spec = commands.find((command) => command.name === 'mcp')!;
  const options = Object.fromEntries(
    Object.entries(spec.options).map(([name, o]) => [name, { type: o.type, multiple: o.multiple ?? false }]),
  );
  const sink = new PassThrough();
  try {
    const { values, positionals } = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
    const module = await spec.load();
    const code = await module.run({
      positionals,
      values: values as OptionValues,
      json: false,
      env,
      stdout: sink,
      stderr: sink,
      signal: new AbortController().signal,
    });
    return { code: code ?? 0, message: '' };
  } catch (error) {
    if (error instanceof CliError) return { code: error.exitCode, message: error.message };
    throw error;
  }
}

test('tern mcp refuses bad input with the field and the allowed values', async () => {
  const home = tempHome();
  try {
    assert.is((await runMcp(['add', 'local', '--', process.execPath, everythingEntry, 'stdio'], home.env)).code, 0);
    assert.is((await runMcp(['add', 'broken', '--', 'tern-no-such-binary'], home.env)).code, 0);
    for (const [what, args, code, message] of refusals) {
      const result = await runMcp(args, home.env);
      assert.is(result.code, code, `${what}: ${result.message}`);
      assert.ok(result.message.includes(message), `${what}: ${result.message}`);
    }
  } finally {
    home.remove();
  }
});

test.run();
