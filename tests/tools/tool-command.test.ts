import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runCli } from '../support/cli.js';

function home(): { env: NodeJS.ProcessEnv; workspace: string; close(): void } {
  const root = mkdtempSync(join(tmpdir(), 'tern-'));
  const workspace = join(root, 'agent', 'workspace');
  mkdirSync(workspace, { recursive: true });
  const env = { PATH: process.env.PATH, HOME: join(root, 'user'), AGENT_HOME: join(root, 'agent') };
  return { env, workspace, close: () => rmSync(root, { recursive: true, force: true }) };
}

test('tern tool list names every enabled tool; --json gives their schemas', () => {
  const h = home();
  const text = runCli(['tool', 'list'], h.env);
  assert.is(text.code, 0);
  assert.equal(text.stdout.trim().split('\n').map((line) => line.split(' ')[0]), ['read_file', 'write_file', 'edit_file', 'append_file', 'list_dir', 'search_files', 'exec', 'web_search', 'web_fetch', 'load_image']);
  const json = JSON.parse(runCli(['tool', 'list', '--json'], h.env).stdout) as { ok: boolean; tools: { name: string; parameters: { required?: string[] } }[] };
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
    [['tool', 'call', 'read_file', '{"path":".env"}', '--json'], 1, '{"ok":false,"content":"access denied: .env is a protected file"}\n'],
    [['tool', 'call', 'exec', '{"command":"rm -rf nothing-here"}'], 1, 'Command blocked by safety guard (dangerous pattern detected)\n'],
    [['tool', 'call', 'exec', '{"command":"echo hi"}', '--channel', 'telegram'], 1, 'exec is not allowed from remote channels (tools.exec.allow_remote is false)\n'],
    [['tool', 'call', 'exec', '{"command":"echo hi"}', '--agent', 'helper'], 0, 'hi\n'],
    [['tool', 'call', 'list_dir'], 0, 'a.txt\n'],
  ];
  for (const [args, code, stdout] of cases) {
    const result = runCli(args, h.env);
    assert.equal({ code: result.code, stdout: result.stdout }, { code, stdout }, args.join(' '));
  }
  h.close();
});

test('tern tool with bad usage exits 2 with a clear message', () => {
  const h = home();
  const cases: [string[], string][] = [
    [['tool'], 'tern: wrong usage (tool takes "list" or "call", got nothing). Run `tern tool --help`.\n'],
    [['tool', 'call'], 'tern: wrong usage (tool call needs a tool NAME). Run `tern tool list` to see the tools.\n'],
    [['tool', 'call', 'read_file', '{bad'], 'tern: wrong usage (ARGS_JSON is not valid JSON (Expected property name or \'}\' in JSON at position 1)). Pass the arguments as one JSON object, e.g. \'{"path":"notes.md"}\'.\n'],
  ];
  for (const [args, stderr] of cases) {
    const result = runCli(args, h.env);
    assert.equal({ code: result.code, stderr: result.stderr }, { code: 2, stderr }, args.join(' '));
  }
  h.close();
});
test.run();
