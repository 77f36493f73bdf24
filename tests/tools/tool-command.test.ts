import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runCli } from '../support/cli.js';
import { everythingEntry } from '../support/mcp-servers.js';

function home(): {
  env: NodeJS.ProcessEnv;
  workspace: string;
  root: string;
  config(config: Record<string, unknown>): void;
  close(): void;
} {
  const root = mkdtempSync(join(tmpdir(), 'tern-'));
  const workspace = join(root, 'agent', 'workspace');
  mkdirSync(workspace, { recursive: true });
  const env = { PATH: process.env.PATH, HOME: join(root, 'user'), AGENT_HOME: join(root, 'agent') };
  return {
    env,
    workspace,
    root,
    config: (config) => writeFileSync(join(root, 'agent', 'config.json'), JSON.stringify({ version: 2, ...config })),
    close: () => rmSync(root, { recursive: true, force: true }),
  };
}

const names = (stdout: string): string[] =>
  stdout
    .trim()
    .split('\n')
    .map((line) => line.split(' ')[0]!);

const pick = (result: { code: number | null; stdout: string }): [number | null, string] => [result.code, result.stdout];

test('tern tool list names every enabled tool; --json gives their schemas', () => {
  const h = home();
  const text = runCli(['tool', 'list'], h.env);
  assert.is(text.code, 0);
  assert.equal(names(text.stdout), [
    'read_file',
    'write_file',
    'edit_file',
    'append_file',
    'list_dir',
    'search_files',
    'exec',
    'web_search',
    'web_fetch',
    'load_image',
    'cron',
    'todo',
    'spawn',
    'spawn_status',
    'subagent',
    'find_skills',
    'install_skill',
    'memory_search',
    'memory_get',
  ]);
  const json = JSON.parse(runCli(['tool', 'list', '--json'], h.env).stdout) as {
    ok: boolean;
    tools: { name: string; parameters: { required?: string[] } }[];
  };
  assert.equal(json.tools.find((t) => t.name === 'write_file')?.parameters.required, ['path', 'content']);
  h.close();
});

test('tern tool call prints what the model receives and exits 1 when the tool failed', () => {
  const h = home();
  writeFileSync(join(h.workspace, 'a.txt'), 'hello');
  writeFileSync(join(h.workspace, '.env'), 'SECRET=1');
  const cases: [string[], number, string][] = [
    [['tool', 'call', 'read_file', '{"path":"a.txt"}'], 0, 'hello\n'],
    [['tool', 'call', 'read_file', '{"path":"a.txt"}', '--json'], 0, '{"ok":true,"content":"hello"}\n'],
    [
      ['tool', 'call', 'read_file', '{"path":".env"}', '--json'],
      1,
      '{"ok":false,"content":"access denied: .env is a protected file"}\n',
    ],
    [
      ['tool', 'call', 'exec', '{"command":"rm -rf ../nothing-here"}'],
      1,
      'Command blocked by safety guard (dangerous pattern detected)\n',
    ],
    // exec from a chat channel: the --channel case below.
    [['tool', 'call', 'exec', '{"command":"echo hi"}', '--agent', 'main'], 0, 'hi\n'],
    [['tool', 'call', 'list_dir'], 0, 'a.txt\n'],
  ];
  for (const [args, code, stdout] of cases) {
    const result = runCli(args, h.env);
    assert.equal({ code: result.code, stdout: result.stdout }, { code, stdout }, args.join(' '));
  }
  h.close();
});

test('tern tool follows the config: tools switched off, deny patterns, allow paths, restrict_to_workspace', () => {
  const h = home();
  const outside = join(h.root, 'outside');
  mkdirSync(outside);
  writeFileSync(join(outside, 'notes.txt'), 'outside notes');
  h.config({
    tools: {
      exec: { enabled: false },
      web: { enabled: false, fetch: { enabled: false } },
      cron: { enabled: false },
      todo: { enabled: false },
      spawn: { enabled: false },
      spawn_status: { enabled: false },
      subagent: { enabled: false },
      skills: { enabled: false },
    },
  });
  assert.equal(names(runCli(['tool', 'list'], h.env).stdout), [
    'read_file',
    'write_file',
    'edit_file',
    'append_file',
    'list_dir',
    'search_files',
    'load_image',
    'memory_search',
    'memory_get',
  ]);
  assert.equal(pick(runCli(['tool', 'call', 'exec', '{"command":"echo hi"}'], h.env)), [
    1,
    'tool "exec" is not available in this turn\n',
  ]);
  h.config({ tools: { exec: { custom_deny_patterns: ['^echo\\s+forbidden'] } } });
  assert.equal(pick(runCli(['tool', 'call', 'exec', '{"command":"echo forbidden"}'], h.env)), [
    1,
    'Command blocked by safety guard (dangerous pattern detected)\n',
  ]);
  const read = ['tool', 'call', 'read_file', JSON.stringify({ path: join(outside, 'notes.txt') })];
  assert.equal(runCli(read, h.env).code, 1);
  h.config({ tools: { allow_read_paths: [outside] } });
  assert.equal(pick(runCli(read, h.env)), [0, 'outside notes\n']);
  h.config({ agents: { defaults: { restrict_to_workspace: false } } });
  assert.equal(pick(runCli(read, h.env)), [0, 'outside notes\n']);
  h.close();
});

test('tern tool masks the configured secrets in what the model would receive', () => {
  const h = home();
  h.config({
    channel_list: { telegram: { enabled: true, settings: { token: '777000111:telegram-token-for-the-test' } } },
    tools: { web: { brave: { enabled: true, api_key: 'brave-search-key-0123456789' } } },
  });
  writeFileSync(
    join(h.workspace, 'leak.txt'),
    'token 777000111:telegram-token-for-the-test and key brave-search-key-0123456789\n',
  );
  assert.equal(pick(runCli(['tool', 'call', 'read_file', '{"path":"leak.txt"}'], h.env)), [
    0,
    'token 7770…st and key brav…89\n',
  ]);
  h.close();
});

test(
  'tern tool --channel: a chat channel gets the message tools (shown, ' +
    'not delivered, and the result says so) and remote rules',
  () => {
    const h = home();
    h.config({ channel_list: { telegram: { enabled: false } } });
    assert.equal(names(runCli(['tool', 'list', '--channel', 'telegram'], h.env).stdout), [
      'read_file',
      'write_file',
      'edit_file',
      'append_file',
      'list_dir',
      'search_files',
      'exec',
      'web_search',
      'web_fetch',
      'message',
      'send_file',
      'load_image',
      'cron',
      'todo',
      'spawn',
      'spawn_status',
      'subagent',
      'find_skills',
      'install_skill',
      'memory_search',
      'memory_get',
    ]);
    const sent = runCli(['tool', 'call', 'message', '{"content":"hello there"}', '--channel', 'telegram'], h.env);
    // Nothing reached a chat: the result the model would read is an error saying so, and the call exits 1.
    assert.equal(
      [sent.code, sent.stdout, sent.stderr],
      [
        1,
        'message not delivered to telegram:direct:tool-call: tern tool connects to no channel; the gateway delivers\n',
        'tern: not delivered (tern tool connects to no channel; ' +
          'the gateway delivers): telegram direct:tool-call: hello there\n',
      ],
    );
    writeFileSync(join(h.workspace, 'notes.md'), '# notes\n');
    const json = runCli(['tool', 'call', 'send_file', '{"path":"notes.md"}', '--channel', 'telegram', '--json'], h.env);
    assert.equal(
      [json.code, JSON.parse(json.stdout)],
      [
        1,
        {
          ok: false,
          content:
            'notes.md not delivered to telegram:direct:tool-call: ' +
            'tern tool connects to no channel; the gateway delivers',
        },
      ],
    );
    assert.equal(pick(runCli(['tool', 'call', 'exec', '{"command":"echo hi"}', '--channel', 'telegram'], h.env)), [
      1,
      'exec is not allowed from remote channels (tools.exec.allow_remote is false)\n',
    ]);
    h.config({ channel_list: { telegram: { enabled: false } }, tools: { exec: { allow_remote: true } } });
    assert.equal(pick(runCli(['tool', 'call', 'exec', '{"command":"echo hi"}', '--channel', 'telegram'], h.env)), [
      0,
      'hi\n',
    ]);
    h.close();
  },
);

test('tern tool --agent: an unknown agent is an error; AGENT.md tools and the turn profile narrow the list', () => {
  const h = home();
  h.config({ agents: { list: [{ id: 'main' }, { id: 'helper' }] } });
  const unknown = runCli(['tool', 'list', '--agent', 'nobody'], h.env);
  assert.equal(
    [unknown.code, unknown.stderr],
    [1, 'tern: no agent "nobody" (agents.list has: main, helper). Pick one of those with --agent.\n'],
  );
  // Each agent has its own workspace and AGENT.md: the helper's (<AGENT_HOME>/workspace-helper) narrows its tools only.
  mkdirSync(join(h.root, 'agent', 'workspace-helper'), { recursive: true });
  writeFileSync(
    join(h.root, 'agent', 'workspace-helper', 'AGENT.md'),
    '---\ntools: [read_file, exec, todo]\n---\nBe brief.\n',
  );
  assert.equal(names(runCli(['tool', 'list', '--agent', 'helper'], h.env).stdout), ['read_file', 'exec', 'todo']);
  assert.ok(names(runCli(['tool', 'list', '--agent', 'main'], h.env).stdout).includes('list_dir'));
  assert.equal(pick(runCli(['tool', 'call', 'list_dir', '{}', '--agent', 'helper'], h.env)), [
    1,
    'tool "list_dir" is not available in this turn\n',
  ]);
  h.config({
    agents: {
      list: [{ id: 'main' }],
      defaults: { turn_profile: { enabled: true, tools: { mode: 'custom', allow: ['exec'] } } },
    },
  });
  assert.equal(names(runCli(['tool', 'list'], h.env).stdout), ['exec']);
  assert.equal(pick(runCli(['tool', 'call', 'todo', '{"action":"read"}'], h.env)), [
    1,
    'tool "todo" is not available in this turn\n',
  ]);
  h.close();
});

test('tern tool lists and calls the tools of the configured MCP servers', () => {
  const h = home();
  h.config({
    tools: {
      mcp: {
        enabled: true,
        servers: { every: { enabled: true, command: process.execPath, args: [everythingEntry, 'stdio'] } },
      },
    },
  });
  const listed = names(runCli(['tool', 'list'], h.env).stdout);
  const echo = listed.find((name) => name.includes('every') && name.includes('echo'));
  assert.ok(echo, listed.join(', '));
  assert.equal(pick(runCli(['tool', 'call', echo!, '{"message":"over mcp"}'], h.env)), [0, 'Echo: over mcp\n']);
  h.close();
});

/** What this Node's JSON.parse says of `text` (Node 24 adds the line and column to Node 20's words). */
function parseError(text: string): string {
  try {
    JSON.parse(text);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error(`${text} parsed`);
}

test('tern tool with bad usage exits 2 with a clear message', () => {
  const h = home();
  const cases: [string[], string][] = [
    [['tool', 'call'], 'tern: wrong usage (tool call needs a tool NAME). Run `tern tool list` to see the tools.\n'],
    [
      ['tool', 'call', 'read_file', '{bad'],
      `tern: wrong usage (ARGS_JSON is not valid JSON (${parseError('{bad')})). ` +
        'Pass the arguments as one JSON object, e.g. \'{"path":"notes.md"}\'.\n',
    ],
  ];
  for (const [args, stderr] of cases) {
    const result = runCli(args, h.env);
    assert.equal({ code: result.code, stderr: result.stderr }, { code: 2, stderr }, args.join(' '));
  }
  h.close();
});
test.run();
