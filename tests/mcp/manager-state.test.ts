// #36: the MCP manager keeps no state of its own: a reducer holds its block, its connections and its tools by name,
// and `npm run lint` fails on a host field that is mutable or a collection changed in place.
import { execFileSync } from 'node:child_process';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { McpTool } from '../../adapters/mcp/mcp-tool.js';
import type { McpOptions } from '../../adapters/mcp/options.js';
import type { McpConnection } from '../../actors/mcp/connection.js';
import { nextManagerState, type McpManagerState } from '../../actors/mcp/manager-state.js';
// @ts-expect-error: a plain script, without types
import { mutableFields } from '../../lint/mutable-fields.mjs';

const options = (enabled: boolean) => ({ enabled, servers: {} }) as unknown as McpOptions;
const connection = (name: string) => ({ name }) as unknown as McpConnection;
const tools = new Map([['mcp_a_read', { name: 'mcp_a_read' } as McpTool]]);

test('the MCP manager and the other hosts have no mutable field: the lint says so and exits 0', () => {
  assert.equal(mutableFields('actors/mcp/manager.ts'), []);
  assert.is(
    execFileSync(process.execPath, ['lint/mutable-fields.mjs'], { encoding: 'utf8' }),
    'no mutable field in 5 hosts\n',
  );
});

test('the lint names a host field that is not readonly, or readonly but a collection changed in place', () => {
  const host = `class Host {
  private readonly connections = new Map<string, number>();
  private readonly seen = [];
  private named: string | undefined;
  private readonly actor = createActor(logic);
  constructor(private options: object, private readonly deps: object) {}
}`;
  assert.equal(mutableFields('host.ts', host), [
    'host.ts:2: connections',
    'host.ts:3: seen',
    'host.ts:4: named',
    'host.ts:6: options',
  ]);
});

test(
  'given servers a and b with tools worked out, ' + 'when a reload makes b stale, then b is gone and so are the tools',
  () => {
    const a = connection('a');
    let state: McpManagerState = { options: options(true), connections: new Map() };
    state = nextManagerState(state, { type: 'started', name: 'a', connection: a });
    state = nextManagerState(state, { type: 'started', name: 'b', connection: connection('b') });
    state = nextManagerState(state, { type: 'named', tools });
    const before = state;
    const reloaded = options(true);
    state = nextManagerState(state, { type: 'reconfigured', options: reloaded, stale: ['b'] });
    assert.equal([...state.connections.keys()], ['a']);
    assert.is(state.connections.get('a'), a);
    assert.is(state.options, reloaded);
    assert.is(state.named, undefined);
    assert.equal([...before.connections.keys()], ['a', 'b']);
    assert.is(before.named, tools);
  },
);

test('given tools worked out, when a server moves, then they are worked out again; a stop leaves no connection', () => {
  let state: McpManagerState = { options: options(true), connections: new Map([['a', connection('a')]]) };
  state = nextManagerState(state, { type: 'named', tools });
  assert.is(nextManagerState(state, { type: 'changed' }).named, undefined);
  const stopped = nextManagerState(state, { type: 'stopped' });
  assert.equal([stopped.connections.size, stopped.named, state.connections.size], [0, undefined, 1]);
});

test.run();
