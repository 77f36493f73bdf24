import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { EventDraft } from '../../bus/events/index.js';
import { McpManager } from '../../actors/mcp/manager.js';
import { everythingStdio, filesystemStdio, mcpOptions } from '../support/mcp-servers.js';
import { tempHome, type TempHome } from '../support/temp-home.js';

const everything = suite<{ home: TempHome; manager: McpManager; events: EventDraft[] }>(
  'MCP over stdio: the everything server',
);

everything.before(async (context) => {
  context.home = tempHome();
  context.events = [];
  context.manager = new McpManager({
    options: mcpOptions({ everything: everythingStdio() }, { max_inline_text_chars: 300 }),
    workspace: context.home.workspace,
    home: context.home.home,
    filter: { enabled: true, minLength: 8, secrets: ['hunter2-very-secret'] },
    report: (draft) => context.events.push(draft),
  });
  context.manager.start();
  assert.equal(await context.manager.settled('everything'), { state: 'connected', tools: 13 });
});

everything.after(async ({ home, manager }) => {
  await manager.stop();
  home.remove();
});

everything('a connected server reports its mcp_server moves and mcp.connected with its tool count', ({ events }) => {
  const moved = (from: string | undefined, to: string, event: string, context = {}) => ({
    type: 'actor.transitioned',
    data: { actor: 'mcp:everything', machine: 'mcp_server', from, to, event, context },
  });
  assert.equal(events, [
    moved(undefined, 'idle', 'xstate.init'),
    moved('idle', 'connecting', 'CONNECT'),
    moved('connecting', 'connected', 'CONNECTED', { tools: 13 }),
    { type: 'mcp.connected', data: { server: 'everything', tools: 13 } },
  ]);
});

everything('tools are named mcp_<server>_<tool> and keep the server JSON schema', ({ manager }) => {
  const sum = manager.tools().find((tool) => tool.name === 'mcp_everything_get-sum');
  assert.ok(sum);
  assert.is(sum.remoteName, 'get-sum');
  assert.is(sum.summary, 'Returns the sum of two numbers');
  assert.match(sum.description, 'runs outside the workspace file policy');
  assert.equal(sum.jsonSchema.required, ['a', 'b']);
  assert.equal(Object.keys(sum.jsonSchema.properties as object), ['a', 'b']);
});

everything('a tool call returns the server text', async ({ manager }) => {
  assert.equal(await manager.call('mcp_everything_get-sum', { a: 2, b: 3 }), {
    ok: true,
    content: 'The sum of 2 and 3 is 5.',
  });
});

everything('a tool runs through the Tool interface with its context signal', async ({ manager, home }) => {
  const echo = manager.tools().find((tool) => tool.name === 'mcp_everything_echo')!;
  const context = {
    agent: 'main',
    session: 'sk_v1_x',
    sessionKey: 'k',
    channel: 'cli',
    chat: 'c',
    remote: false,
    workspace: home.workspace,
    signal: new AbortController().signal,
  };
  assert.equal(await echo.execute({ message: 'hi' }, context), { ok: true, content: 'Echo: hi' });
});

everything('an image becomes a workspace file the channel can send', async ({ manager, home }) => {
  const result = await manager.call('mcp_everything_get-tiny-image', {});
  assert.is(result.ok, true);
  if (!result.ok) return;
  const [image] = result.media ?? [];
  assert.ok(image);
  assert.is(image.kind, 'image');
  assert.is(image.mime, 'image/png');
  assert.match(image.path, /^artifacts\/[0-9a-f-]+\.png$/);
  assert.equal([...readFileSync(join(home.workspace, image.path)).subarray(1, 4)], [0x50, 0x4e, 0x47]);
  assert.is(
    result.content,
    `Here's the image you requested:\nThe image above is the MCP logo.\n` +
      `image (image/png) saved to ${image.path}\n[file:${image.path}]`,
  );
});

everything('an embedded text resource is shown with its URI', async ({ manager }) => {
  const result = await manager.call('mcp_everything_get-resource-reference', { resourceType: 'Text', resourceId: 1 });
  assert.is(result.ok, true);
  assert.match(
    result.content,
    new RegExp(
      /^Returning resource reference for Resource 1:\n/.source +
        /resource demo:\/\/resource\/dynamic\/text\/1:\nResource 1: This is a plaintext resource/.source,
    ),
  );
});

everything(
  'text over max_inline_text_chars (Unicode characters) becomes an artifact with a [file:…] note',
  async ({ manager, home }) => {
    const message = '€'.repeat(300);
    const inline = await manager.call('mcp_everything_echo', { message: '€'.repeat(294) });
    assert.equal(inline, { ok: true, content: `Echo: ${'€'.repeat(294)}` });
    const saved = await manager.call('mcp_everything_echo', { message });
    assert.is(saved.ok, true);
    const path = /\[file:(artifacts\/[^\]]+)\]$/.exec(saved.content)?.[1];
    assert.ok(path, saved.content);
    assert.match(saved.content, /^The result was 306 characters/);
    assert.is(readFileSync(join(home.workspace, path), 'utf8'), `Echo: ${message}`);
  },
);

everything('results pass the secret filter', async ({ manager }) => {
  assert.equal(await manager.call('mcp_everything_echo', { message: 'pw hunter2-very-secret' }), {
    ok: true,
    content: 'Echo: pw hunt…et',
  });
});

everything('a tool error from the server is a failed result the model reads', async ({ manager }) => {
  const result = await manager.call('mcp_everything_get-sum', { a: 'x' });
  assert.is(result.ok, false);
  assert.match(result.content, /^MCP error -32602: Input validation error: Invalid arguments for tool get-sum/);
});

everything('an unknown tool name is a failed result, not a throw', async ({ manager }) => {
  assert.equal(await manager.call('mcp_everything_nope', {}), {
    ok: false,
    content: 'unknown MCP tool "mcp_everything_nope" (its server may be disconnected or the tool removed)',
  });
});

everything.run();

const environment = suite('MCP over stdio: the server environment');

environment('without inherit_env a server sees only a minimal environment plus env_file and env', async () => {
  const home = tempHome();
  writeFileSync(
    join(home.home, 'mcp.env'),
    '# tokens\nexport FROM_FILE="quoted # not a comment"\nSHARED=file\nPLAIN=bare value # comment\n',
  );
  const manager = new McpManager({
    options: mcpOptions({
      everything: everythingStdio({ env_file: 'mcp.env', env: { SHARED: 'env', ACCESS: 'tok' } }),
    }),
    workspace: home.workspace,
    home: home.home,
    env: { ...process.env, TERN_PARENT_SECRET: 'should-not-pass' },
  });
  try {
    manager.start();
    await manager.settled('everything');
    const seen = JSON.parse((await manager.call('mcp_everything_get-env', {})).content) as Record<string, string>;
    assert.is(seen.TERN_PARENT_SECRET, undefined);
    assert.equal(
      { FROM_FILE: seen.FROM_FILE, SHARED: seen.SHARED, PLAIN: seen.PLAIN, ACCESS: seen.ACCESS },
      { FROM_FILE: 'quoted # not a comment', SHARED: 'env', PLAIN: 'bare value', ACCESS: 'tok' },
    );
    assert.ok(seen.PATH);
  } finally {
    await manager.stop();
    home.remove();
  }
});

environment('with inherit_env the server sees the whole process environment', async () => {
  const home = tempHome();
  const manager = new McpManager({
    options: mcpOptions({ everything: everythingStdio({ inherit_env: true }) }),
    workspace: home.workspace,
    home: home.home,
    env: { ...process.env, TERN_PARENT_VALUE: 'passed' },
  });
  try {
    manager.start();
    await manager.settled('everything');
    const seen = JSON.parse((await manager.call('mcp_everything_get-env', {})).content) as Record<string, string>;
    assert.is(seen.TERN_PARENT_VALUE, 'passed');
  } finally {
    await manager.stop();
    home.remove();
  }
});

environment.run();

const filesystem = suite('MCP over stdio: the filesystem server');

filesystem('reads a file inside the directory it was given', async () => {
  const home = tempHome();
  const shared = join(home.home, 'shared');
  mkdirSync(shared);
  writeFileSync(join(shared, 'notes.txt'), 'line one\nline two\n');
  const manager = new McpManager({
    options: mcpOptions({ files: filesystemStdio(shared) }),
    workspace: home.workspace,
    home: home.home,
  });
  try {
    manager.start();
    assert.is((await manager.settled('files')).state, 'connected');
    assert.equal(await manager.call('mcp_files_read_text_file', { path: join(shared, 'notes.txt') }), {
      ok: true,
      content: 'line one\nline two\n',
    });
    const outside = await manager.call('mcp_files_read_text_file', { path: join(home.home, 'elsewhere.txt') });
    assert.is(outside.ok, false);
    assert.not.ok(existsSync(join(home.workspace, 'artifacts')));
  } finally {
    await manager.stop();
    home.remove();
  }
});

filesystem.run();
