import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { EventDraft } from '../../bus/events/index.js';
import { McpManager } from '../../actors/mcp/manager.js';
import { everythingStdio, mcpOptions } from '../support/mcp-servers.js';
import { tempHome } from '../support/temp-home.js';
import { eventually } from '../support/eventually.js';
import { alive } from '../support/process-alive.js';

test('a killed stdio server is restarted with backoff and its tools work again', async () => {
  const home = tempHome();
  const events: EventDraft[] = [];
  const manager = new McpManager({
    options: mcpOptions({ everything: everythingStdio() }),
    workspace: home.workspace,
    home: home.home,
    backoff: { initialMs: 50, maxMs: 400 },
    report: (draft) => events.push(draft),
  });
  try {
    manager.start();
    await manager.settled('everything');
    const first = manager.pid('everything');
    assert.ok(first);
    const dropped = manager.nextState('everything');
    process.kill(first, 'SIGKILL');
    const failed = await dropped;
    assert.equal(failed.state === 'failed' && { reason: failed.reason.split(';')[0], retryInMs: failed.retryInMs }, {
      reason: 'connection closed',
      retryInMs: 50,
    });
    assert.equal(manager.tools(), []);
    assert.equal(await manager.nextState('everything'), { state: 'connected', tools: 13 });
    assert.is.not(manager.pid('everything'), first);
    assert.equal(await manager.call('mcp_everything_get-sum', { a: 1, b: 1 }), {
      ok: true,
      content: 'The sum of 1 and 1 is 2.',
    });
    assert.equal(
      events.map((e) =>
        e.type === 'actor.transitioned' ? `${e.data.actor} ${e.data.from}→${e.data.to} ${e.data.event}` : e.type,
      ),
      [
        'mcp:everything undefined→idle xstate.init',
        'mcp:everything idle→connecting CONNECT',
        'mcp:everything connecting→connected CONNECTED',
        'mcp.connected',
        'mcp:everything connected→failed FAILED',
        'mcp.failed',
        'mcp:everything failed→connecting after.retry',
        'mcp:everything connecting→connected CONNECTED',
        'mcp.connected',
      ],
      'every move of the mcp_server machine is an actor.transitioned event',
    );
  } finally {
    await manager.stop();
    home.remove();
  }
});

test('a stopped server closes its client first: its process has ended when stop() resolves', async () => {
  const home = tempHome();
  const events: EventDraft[] = [];
  const manager = new McpManager({
    options: mcpOptions({ everything: everythingStdio() }),
    workspace: home.workspace,
    home: home.home,
    report: (draft) => events.push(draft),
  });
  try {
    manager.start();
    await manager.settled('everything');
    const pid = manager.pid('everything')!;
    await manager.stop();
    const running = await eventually(() => alive(pid), false);
    assert.equal(
      [running, manager.statuses()[0]?.connection, manager.pid('everything')],
      [false, { state: 'disabled' }, undefined],
    );
    assert.equal(
      events.flatMap((e) => (e.type === 'actor.transitioned' ? [`${e.data.from}→${e.data.to} ${e.data.event}`] : [])),
      [
        'undefined→idle xstate.init',
        'idle→connecting CONNECT',
        'connecting→connected CONNECTED',
        'connected→closing STOP',
        'closing→disabled done.close',
      ],
    );
    assert.equal(
      events.filter((e) => e.type === 'actor.stopped'),
      [{ type: 'actor.stopped', data: { actor: 'mcp:everything', machine: 'mcp_server', reason: 'stopped' } }],
      'the stopped server leaves the machines page',
    );
  } finally {
    await manager.stop();
    home.remove();
  }
});

test('a command that cannot start fails with the reason and keeps retrying, doubling the wait', async () => {
  const home = tempHome();
  const manager = new McpManager({
    options: mcpOptions({ broken: { enabled: true, command: 'tern-no-such-mcp-server' } }),
    workspace: home.workspace,
    home: home.home,
    backoff: { initialMs: 20, maxMs: 50 },
  });
  try {
    manager.start();
    const waits: number[] = [];
    for (let i = 0; i < 3; i++) {
      const state = await manager.nextState('broken');
      if (state.state === 'failed') waits.push(state.retryInMs);
    }
    assert.equal(waits, [20, 40, 50]);
    const status = manager.statuses()[0]!;
    assert.is(status.connection.state === 'failed' && status.connection.reason.includes('ENOENT'), true);
  } finally {
    await manager.stop();
    home.remove();
  }
});

test('a server that never answers fails after the connect timeout instead of hanging', async () => {
  const home = tempHome();
  const manager = new McpManager({
    options: mcpOptions({
      silent: { enabled: true, command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'] },
    }),
    workspace: home.workspace,
    home: home.home,
    connectTimeoutMs: 300,
    backoff: { initialMs: 60_000, maxMs: 60_000 },
  });
  try {
    manager.start();
    const state = await manager.settled('silent');
    assert.equal(state.state === 'failed' && state.reason, 'no answer within 300 ms');
    assert.is(manager.pid('silent'), undefined);
  } finally {
    await manager.stop();
    home.remove();
  }
});

test.run();
