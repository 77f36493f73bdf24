import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { loadConfig } from '../../store/config/index.js';
import { everythingEntry, filesystemEntry } from '../support/mcp-servers.js';
import { startTurnFixture, writeConfig, type TurnFixture } from '../support/turn-fixture.js';
import { completion } from '../support/vendor-chat-completions.js';
import { bodyOf } from '../support/vendor-server.js';
import { alive } from '../support/process-alive.js';

const test = suite('MCP servers follow a config reload');

const toolNames = (f: TurnFixture, i: number) =>
  ((bodyOf(f.vendor.requests[i]) as { tools?: Array<{ function: { name: string } }> }).tools ?? []).map(
    (t) => t.function.name,
  );
const everything = (env: Record<string, string> = {}) => ({
  enabled: true,
  command: process.execPath,
  args: [everythingEntry, 'stdio'],
  env,
});
const filesystem = (dir: string) => ({ enabled: true, command: process.execPath, args: [filesystemEntry, dir] });

/** What the gateway's hot reload does with a changed config.json: the running runtime's config is replaced. */
function reload(f: TurnFixture, servers: Record<string, unknown>): void {
  writeConfig(f.home.home, f.vendor.url, { tools: { mcp: { enabled: true, servers } } });
  f.runtime.loaded.config = loadConfig({ env: f.home.env }).config;
}

async function ended(pid: number, ms = 15_000): Promise<boolean> {
  const until = Date.now() + ms;
  while (alive(pid)) {
    if (Date.now() > until) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return true;
}

test(
  'a changed server restarts alone, a removed one stops and a new one starts, ' +
    'and the next turn offers their tools',
  async () => {
    const f = await startTurnFixture({
      tools: { mcp: { enabled: true, servers: { a: everything(), b: filesystem('/tmp') } } },
    });
    try {
      const mcp = f.runtime.mcp!;
      assert.is((await mcp.settled('a')).state, 'connected');
      assert.is((await mcp.settled('b')).state, 'connected');
      const pidA = mcp.pid('a')!;
      const pidB = mcp.pid('b')!;
      f.vendor.reply(completion({ content: 'one' }), completion({ content: 'two' }), completion({ content: 'three' }));
      await f.send('first');
      assert.ok(toolNames(f, 0).includes('mcp_a_echo'));
      assert.ok(toolNames(f, 0).includes('mcp_b_list_allowed_directories'));
      assert.not.ok(toolNames(f, 0).includes('mcp_b_echo'));

      reload(f, { a: everything(), b: everything({ MARK: 'changed' }) });
      await f.send('second');
      const pidB2 = mcp.pid('b');
      assert.ok(pidB2 !== undefined && pidB2 !== pidB, 'b runs in a new process');
      assert.ok(await ended(pidB), "b's old process ended");
      assert.is(mcp.pid('a'), pidA, 'a keeps its process');
      assert.ok(toolNames(f, 1).includes('mcp_b_echo'), "b's new tools are offered");
      assert.not.ok(toolNames(f, 1).includes('mcp_b_list_allowed_directories'), "b's old tools are gone");
      assert.ok(toolNames(f, 1).includes('mcp_a_echo'));

      reload(f, { b: everything({ MARK: 'changed' }), c: filesystem('/tmp') });
      await f.send('third');
      assert.is(mcp.pid('a'), undefined);
      assert.ok(await ended(pidA), "a's process ended");
      assert.is(mcp.pid('b'), pidB2, 'b keeps its process');
      assert.ok(mcp.pid('c') !== undefined, 'c started');
      assert.not.ok(
        toolNames(f, 2).some((name) => name.startsWith('mcp_a_')),
        "a's tools are gone",
      );
      assert.ok(toolNames(f, 2).includes('mcp_c_list_allowed_directories'), "c's tools are offered");
      assert.ok(toolNames(f, 2).includes('mcp_b_echo'));
      assert.equal(
        mcp.statuses().map((s) => s.name),
        ['b', 'c'],
      );
    } finally {
      await f.close();
    }
  },
);

test.run();
