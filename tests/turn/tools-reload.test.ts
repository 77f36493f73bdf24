import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { loadConfig } from '../../store/config/index.js';
import { startTurnFixture, writeConfig, type TurnFixture } from '../support/turn-fixture.js';
import { completion } from '../support/vendor-chat-completions.js';
import { bodyOf } from '../support/vendor-server.js';

const test = suite('tools follow a config reload');

const toolCall = (id: string, name: string, args: unknown) => ({
  id,
  type: 'function' as const,
  function: { name, arguments: JSON.stringify(args) },
});
type Body = { messages: Array<Record<string, unknown>>; tools?: Array<{ function: { name: string } }> };
const request = (f: TurnFixture, i: number) => bodyOf(f.vendor.requests[i]) as Body;

/** What the gateway's hot reload does with a changed config.json: the running runtime's config is replaced. */
function reload(f: TurnFixture, tools: Record<string, unknown>): void {
  writeConfig(f.home.home, f.vendor.url, { tools });
  f.runtime.loaded.config = loadConfig({ env: f.home.env }).config;
}

test(
  'tools.exec.enabled turned false applies to the next turn: ' +
    'exec is no longer offered and a call to it is refused as its tool result',
  async () => {
    const f = await startTurnFixture({ tools: { exec: { enabled: true } } });
    try {
      const exec = toolCall('call_1', 'exec', { command: 'echo reloaded' });
      f.vendor.reply(
        completion({ tool_calls: [exec] }, 'tool_calls'),
        completion({ content: 'Ran.' }),
        completion({ tool_calls: [exec] }, 'tool_calls'),
        completion({ content: 'Could not.' }),
      );
      await f.send('run it');
      assert.ok(request(f, 0).tools!.some((t) => t.function.name === 'exec'));
      assert.match(String(request(f, 1).messages.at(-1)!.content), 'reloaded');
      reload(f, { exec: { enabled: false } });
      await f.send('run it again');
      assert.not.ok(
        request(f, 2).tools!.some((t) => t.function.name === 'exec'),
        'exec is not offered after the reload',
      );
      assert.equal(request(f, 3).messages.at(-1), {
        role: 'tool',
        tool_call_id: 'call_1',
        content: 'tool "exec" is not available in this turn',
      });
    } finally {
      await f.close();
    }
  },
);

test("a custom deny pattern added by a reload refuses the next turn's matching command", async () => {
  const f = await startTurnFixture({ tools: { exec: { enabled: true } } });
  try {
    const exec = toolCall('call_1', 'exec', { command: 'echo forbidden-word' });
    f.vendor.reply(
      completion({ tool_calls: [exec] }, 'tool_calls'),
      completion({ content: 'Ran.' }),
      completion({ tool_calls: [exec] }, 'tool_calls'),
      completion({ content: 'Refused.' }),
    );
    await f.send('run it');
    assert.match(String(request(f, 1).messages.at(-1)!.content), 'forbidden-word');
    reload(f, { exec: { enabled: true, custom_deny_patterns: ['forbidden-word'] } });
    await f.send('run it again');
    assert.equal(request(f, 3).messages.at(-1), {
      role: 'tool',
      tool_call_id: 'call_1',
      content: 'Command blocked by safety guard (dangerous pattern detected)',
    });
  } finally {
    await f.close();
  }
});

test('a todo plan written before a config reload is still there after it (a reload is not a restart)', async () => {
  const f = await startTurnFixture({ tools: { exec: { enabled: false } } });
  try {
    const todos = [{ id: 'a', content: 'pack the boxes', status: 'in_progress', priority: 'high' }];
    const write = toolCall('call_1', 'todo', { action: 'write', todos });
    const read = toolCall('call_2', 'todo', { action: 'read' });
    f.vendor.reply(
      completion({ tool_calls: [write] }, 'tool_calls'),
      completion({ content: 'Planned.' }),
      completion({ tool_calls: [read] }, 'tool_calls'),
      completion({ content: 'Read.' }),
    );
    await f.send('plan the move');
    reload(f, { exec: { enabled: true } });
    await f.send('where are we?');
    const result = JSON.parse(String(request(f, 3).messages.at(-1)!.content)) as {
      todos: unknown[];
      total_count: number;
    };
    assert.equal(result.todos, todos);
    assert.is(result.total_count, 1);
  } finally {
    await f.close();
  }
});

test.run();
