// Waiting for MCP servers before a turn (#35 item 6): each server is judged by the state it settled in.
import { execFileSync, spawnSync } from 'node:child_process';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { McpManager } from '../../actors/mcp/manager.js';
import { mcpReady } from '../../actors/wiring/mcp-ready.js';
import { eventually } from '../support/eventually.js';
import { everythingEntry, mcpOptions } from '../support/mcp-servers.js';
import { tempHome } from '../support/temp-home.js';

/** A stdio command that waits until the test writes to `gate` (a FIFO: every attempt waits anew), then runs `then`. */
const gated = (gate: string, then: string) => ({
  enabled: true,
  command: '/bin/sh',
  args: ['-c', `cat "${gate}" > /dev/null; ${then}`],
});

/** Opening a FIFO for writing waits for its reader; the write lets that one reader go on. */
async function release(gate: string): Promise<void> {
  const fifo = await open(gate, 'w');
  await fifo.write('go\n');
  await fifo.close();
}

test('a server that failed and is retrying while a slower one connects is named as failed, not as slow', async () => {
  const home = tempHome();
  const brokenGate = join(home.home, 'broken.gate');
  const slowGate = join(home.home, 'slow.gate');
  execFileSync('mkfifo', [brokenGate, slowGate]);
  const manager = new McpManager({
    options: mcpOptions({
      broken: gated(brokenGate, 'echo "no database" >&2; exit 3'),
      slow: gated(slowGate, `exec "${process.execPath}" "${everythingEntry}" stdio`),
    }),
    workspace: home.workspace,
    home: home.home,
    backoff: { initialMs: 20, maxMs: 20 },
    report: () => undefined,
  });
  const missing: string[] = [];
  try {
    manager.start();
    const ready = mcpReady(manager, 30, { waiting: () => undefined, missing: (line) => missing.push(line) });
    await release(brokenGate);
    const attempt = () => manager.statuses().find((s) => s.name === 'broken')?.connection;
    // The second attempt waits at its gate: the failed server is connecting again when the slow one arrives.
    assert.equal(await eventually(attempt, { state: 'connecting', attempt: 2 }), { state: 'connecting', attempt: 2 });
    await release(slowGate);
    await ready;
    assert.equal(missing.length, 1, missing.join('\n'));
    assert.is(
      missing[0],
      'MCP server "broken" failed to connect (MCP error -32000: Connection closed; ' +
        'stderr: no database); its tools are not offered',
    );
  } finally {
    await manager.stop();
    // A server stopped while it still waits at its gate is killed seconds later by the SDK; the test does not wait.
    spawnSync('pkill', ['-f', home.home]);
    home.remove();
  }
});

test.run();
