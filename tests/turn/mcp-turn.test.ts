import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Envelope } from '../../bus/index.js';
import { everythingEntry } from '../support/mcp-servers.js';
import { startTurnFixture, type TurnFixture } from '../support/turn-fixture.js';
import { completion } from '../support/vendor-chat-completions.js';

const call = (id: string, name: string, args: unknown) =>
  completion(
    { tool_calls: [{ id, type: 'function', function: { name, arguments: JSON.stringify(args) } }] },
    'tool_calls',
  );
const toolNames = (f: TurnFixture, request: number) =>
  (
    (JSON.parse(f.vendor.requests[request]!.body.toString()) as { tools?: Array<{ function: { name: string } }> })
      .tools ?? []
  ).map((t) => t.function.name);
const everything = { enabled: true, command: process.execPath, args: [everythingEntry, 'stdio'] };

test(
  'a turn calls a tool of a real MCP server ' + '(server-everything over stdio) and the model sees its schema',
  async () => {
    const f = await startTurnFixture({ tools: { mcp: { enabled: true, servers: { everything } } } });
    try {
      assert.is((await f.runtime.mcp!.settled('everything')).state, 'connected');
      f.vendor.reply(
        call('e1', 'mcp_everything_echo', { message: 'hello mcp' }),
        completion({ content: 'It echoed.' }),
      );
      const reply = await f.send('echo something');
      assert.is(reply.kind === 'turn' && reply.text, 'It echoed.');
      const first = JSON.parse(f.vendor.requests[0]!.body.toString()) as {
        tools: Array<{ function: { name: string; parameters: { properties: Record<string, unknown> } } }>;
      };
      const echo = first.tools.find((t) => t.function.name === 'mcp_everything_echo')!;
      assert.ok(echo.function.parameters.properties.message, 'the server schema is passed through');
      const completed = f.events.find((e): e is Envelope<'tool.completed'> => e.type === 'tool.completed')!;
      assert.equal(completed.data, {
        call_id: 'e1',
        name: 'mcp_everything_echo',
        ok: true,
        content: 'Echo: hello mcp',
      });
      const list = await f.send('/list mcp');
      assert.match(list.kind === 'command' ? list.text : '', /everything/);
    } finally {
      await f.close();
    }
  },
);

test('with discovery, a search unlocks a tool in the same turn and it hides again after ttl turns', async () => {
  const f = await startTurnFixture({
    tools: { mcp: { enabled: true, discovery: { enabled: true, ttl: 2, use_bm25: true }, servers: { everything } } },
  });
  try {
    await f.runtime.mcp!.settled('everything');
    f.vendor.reply(
      call('s1', 'tool_search_tool_bm25', { query: 'echo message back' }),
      completion({ content: 'found it' }),
    );
    await f.send('find an echo tool');
    assert.not.ok(toolNames(f, 0).includes('mcp_everything_echo'), 'hidden before the search');
    assert.ok(toolNames(f, 0).includes('tool_search_tool_bm25'));
    assert.ok(toolNames(f, 1).includes('mcp_everything_echo'), 'unlocked within the turn that found it');
    const unlocked = f.events.find((e): e is Envelope<'mcp.unlocked'> => e.type === 'mcp.unlocked')!;
    assert.ok(unlocked.data.tools.includes('mcp_everything_echo'));
    assert.is(unlocked.data.ttl, 2);
    f.vendor.reply(completion({ content: 'second turn' }), completion({ content: 'third turn' }));
    await f.send('turn two');
    assert.ok(toolNames(f, 2).includes('mcp_everything_echo'), 'still unlocked in its second turn');
    await f.send('turn three');
    assert.not.ok(toolNames(f, 3).includes('mcp_everything_echo'), 'hidden again after ttl turns');
    assert.ok(f.events.some((e) => e.type === 'mcp.hidden' && e.data.tools.includes('mcp_everything_echo')));
  } finally {
    await f.close();
  }
});

test.run();
