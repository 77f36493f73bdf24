import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { initialTransition, transition, type SnapshotFrom } from 'xstate';
import type { ConnectionState } from '../../adapters/mcp/connection-state.js';
import { MCP_SERVER_IDLE, serverMoved, type ServerStateName } from '../../adapters/mcp/server-moves.js';
import { mcpServerMachine, type McpServerEvent } from '../../machines/mcp-server.js';

const reach: Record<ServerStateName, Array<McpServerEvent['type']>> = {
  idle: [],
  connecting: ['CONNECT'],
  connected: ['CONNECT', 'CONNECTED'],
  failed: ['CONNECT', 'FAILED'],
  disabled: ['STOP'],
};

function snapshotAt(state: ServerStateName): SnapshotFrom<typeof mcpServerMachine> {
  let [snapshot] = initialTransition(mcpServerMachine);
  for (const type of reach[state]) [snapshot] = transition(mcpServerMachine, snapshot, { type });
  return snapshot;
}

const moves: Array<[from: ServerStateName, to: ConnectionState, event: McpServerEvent['type']]> = [
  [MCP_SERVER_IDLE, { state: 'connecting', attempt: 1 }, 'CONNECT'],
  ['connecting', { state: 'connected', tools: 3 }, 'CONNECTED'],
  ['connecting', { state: 'failed', reason: 'spawn ENOENT', retryInMs: 500 }, 'FAILED'],
  ['connected', { state: 'connected', tools: 4 }, 'TOOLS_CHANGED'],
  ['connected', { state: 'failed', reason: 'connection closed', retryInMs: 500 }, 'FAILED'],
  ['failed', { state: 'connecting', attempt: 2 }, 'CONNECT'],
  ['connected', { state: 'disabled' }, 'STOP'],
  ['failed', { state: 'disabled' }, 'STOP'],
];

for (const [from, to, event] of moves) {
  test(`mcp_server: ${from} → ${to.state} is published as ${event}, a move its chart makes`, () => {
    const draft = serverMoved('files', from, to);
    assert.equal(draft, {
      type: 'actor.transitioned',
      data: { actor: 'mcp:files', machine: 'mcp_server', from, to: to.state, event },
    });
    const [next] = transition(mcpServerMachine, snapshotAt(from), { type: event });
    assert.is(String(next.value), to.state);
  });
}

test.run();
