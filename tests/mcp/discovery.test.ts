import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createActor, type Actor } from 'xstate';
import { InProcessBus } from '../../bus/bus.js';
import type { Envelope } from '../../bus/events/index.js';
import { listMcpText, showMcpText } from '../../actors/mcp/chat-views.js';
import { McpManager } from '../../actors/mcp/manager.js';
import type { Tool, ToolContext } from '../../adapters/tools/tool.js';
import { mcpDiscoveryMachine, unlockedTools } from '../../machines/mcp-discovery.js';
import { everythingStdio, mcpOptions } from '../support/mcp-servers.js';
import { tempHome, type TempHome } from '../support/temp-home.js';

interface Context {
  home: TempHome;
  manager: McpManager;
}

const discovery = suite<Context>('MCP discovery over a real server');

discovery.before(async (context) => {
  context.home = tempHome();
  context.manager = new McpManager({
    options: mcpOptions(
      { everything: everythingStdio(), shown: everythingStdio({ deferred: false }) },
      { discovery: { enabled: true, ttl: 2, max_search_results: 2, use_bm25: true, use_regex: true } },
    ),
    workspace: context.home.workspace,
    home: context.home.home,
  });
  context.manager.start();
  await Promise.all([context.manager.settled('everything'), context.manager.settled('shown')]);
});

discovery.after(async ({ manager, home }) => {
  await manager.stop();
  home.remove();
});

/** A session as the turn runner hosts it: the discovery machine announcing on the bus. */
function session(manager: McpManager, ttl: number) {
  const bus = new InProcessBus();
  const published: Envelope[] = [];
  bus.events$.subscribe((event) => published.push(event));
  const actor: Actor<typeof mcpDiscoveryMachine> = createActor(
    mcpDiscoveryMachine.provide({
      actions: {
        announceUnlocked: (_, { tools, ttl: turns }) =>
          void bus.publish({ type: 'mcp.unlocked', session: 'sk_v1_s', data: { tools, ttl: turns } }),
        announceHidden: (_, { tools }) => void bus.publish({ type: 'mcp.hidden', session: 'sk_v1_s', data: { tools } }),
      },
    }),
    { input: { ttl } },
  ).start();
  const search = manager.searchTools(undefined, (tools) => actor.send({ type: 'FOUND', tools }));
  const visible = () => manager.tools(undefined, unlockedTools(actor.getSnapshot().context)).map((tool) => tool.name);
  const endTurn = () => actor.send({ type: 'TURN_ENDED' });
  return { search, visible, endTurn, published };
}

const context: ToolContext = {
  agent: 'main',
  session: 'sk_v1_s',
  sessionKey: 'k',
  channel: 'cli',
  chat: 'c',
  remote: false,
  workspace: '/unused',
  signal: new AbortController().signal,
};

function run(tool: Tool | undefined, args: unknown) {
  assert.ok(tool);
  return tool.execute(tool.parameters.parse(args), context);
}

discovery('discovery hides the tools of servers that do not opt out', ({ manager }) => {
  const visible = manager.tools().map((tool) => tool.name);
  assert.ok(visible.includes('mcp_shown_get-sum'));
  assert.not.ok(visible.some((name) => name.startsWith('mcp_everything_')));
  assert.equal(
    manager.statuses().map((s) => [s.name, s.deferred]),
    [
      ['everything', true],
      ['shown', false],
    ],
  );
  assert.is(manager.hasDeferred(), true);
  assert.is(manager.hasDeferred(['shown']), false);
});

discovery('both search tools are offered when both are enabled and a server in scope is deferred', ({ manager }) => {
  assert.equal(
    session(manager, 2).search.map((tool) => tool.name),
    ['tool_search_tool_bm25', 'tool_search_tool_regex'],
  );
  assert.equal(
    manager.searchTools(['shown'], () => undefined),
    [],
  );
});

discovery('a BM25 search unlocks what it found for ttl turns, then it is hidden again', async ({ manager }) => {
  const { search, visible, endTurn, published } = session(manager, 2);
  const result = await run(search[0], { query: 'add numbers sum' });
  assert.equal(result, {
    ok: true,
    content: 'Found 1 MCP tool, now available for 2 turns:\n- mcp_everything_get-sum: Returns the sum of two numbers',
  });
  assert.ok(visible().includes('mcp_everything_get-sum'));
  assert.equal(await manager.call('mcp_everything_get-sum', { a: 3, b: 4 }), {
    ok: true,
    content: 'The sum of 3 and 4 is 7.',
  });
  endTurn();
  assert.ok(visible().includes('mcp_everything_get-sum'));
  endTurn();
  assert.not.ok(visible().includes('mcp_everything_get-sum'));
  assert.equal(
    published.map((e) => [e.type, e.data]),
    [
      ['mcp.unlocked', { tools: ['mcp_everything_get-sum'], ttl: 2 }],
      ['mcp.hidden', { tools: ['mcp_everything_get-sum'] }],
    ],
  );
});

discovery('a regex search returns at most max_search_results tools', async ({ manager }) => {
  const { search, visible } = session(manager, 2);
  const result = await run(search[1], { pattern: '^mcp_everything_toggle' });
  assert.equal(result, {
    ok: true,
    content:
      'Found 2 MCP tools, now available for 2 turns:\n' +
      '- mcp_everything_toggle-simulated-logging: Toggles simulated, random-leveled logging on or off.\n' +
      '- mcp_everything_toggle-subscriber-updates: Toggles simulated resource subscription updates on or off.',
  });
  assert.equal(
    visible().filter((name) => name.startsWith('mcp_everything_')),
    ['mcp_everything_toggle-simulated-logging', 'mcp_everything_toggle-subscriber-updates'],
  );
});

discovery('a search that finds nothing unlocks nothing', async ({ manager }) => {
  const { search, published } = session(manager, 2);
  assert.equal(await run(search[0], { query: 'kubernetes' }), {
    ok: true,
    content: 'No hidden MCP tool matches "kubernetes". Try other words.',
  });
  assert.equal(published, []);
});

discovery('an invalid regular expression is an error naming the field', async ({ manager }) => {
  const { search } = session(manager, 2);
  await run(search[1], { pattern: '(' }).then(
    () => assert.unreachable('should throw'),
    (error: Error & { code?: string }) => {
      assert.is(error.code, 'invalid_pattern');
      assert.match(error.message, /^pattern: not a valid regular expression/);
    },
  );
});

discovery('an agent with mcpServers sees only those servers', ({ manager }) => {
  assert.equal(new Set(manager.catalogue(['shown']).map((tool) => tool.server)), new Set(['shown']));
  assert.equal(manager.tools(['everything']), []);
});

discovery('/list mcp shows each server with enabled, deferred and connected', ({ manager }) => {
  assert.is(
    listMcpText(manager.statuses()),
    'everything: enabled yes, deferred yes, connected yes (13 tools)\n' +
      'shown: enabled yes, deferred no, connected yes (13 tools)',
  );
});

discovery('/show mcp <server> lists the tools of a connected server', ({ manager }) => {
  const lines = showMcpText(manager, 'shown').split('\n');
  assert.is(lines[0], 'MCP server shown: 13 tools');
  assert.ok(lines.includes('- mcp_shown_get-sum: Returns the sum of two numbers'));
  assert.is(
    showMcpText(manager, 'everything').split('\n')[0],
    'MCP server everything: 13 tools (deferred: found by search)',
  );
  assert.is(showMcpText(manager, 'ghost'), 'No MCP server named "ghost" (configured: everything, shown).');
});

discovery.run();
