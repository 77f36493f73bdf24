import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ActorView } from '../../adapters/launcher/api/actor-board.js';
import type { ChartNode } from '../../adapters/launcher/api/host.js';
import type { Envelope } from '../../bus/index.js';
import { call } from '../launcher/launcher-harness.js';
import { chatSocket, replyStreamed, startDashboard, type Dashboard } from '../support/dashboard-harness.js';
import { until } from '../support/eventually.js';
import { everythingStdio, filesystemStdio } from '../support/mcp-servers.js';

type Actors = { actors: Array<Omit<ActorView, 'history'>> };

const get = async <T>(dashboard: Dashboard, path: string): Promise<T> =>
  (await call(dashboard.launcher, path, { cookie: dashboard.cookie })).body as T;

/** Polls `/api/actors/:id` until the actor reaches `state` (the MCP server connects in the background). */
async function reached(dashboard: Dashboard, actor: string, state: string): Promise<ActorView> {
  let last: unknown;
  for (let tries = 0; tries < 600; tries++) {
    const reply = await call(dashboard.launcher, `/api/actors/${actor}`, { cookie: dashboard.cookie });
    last = reply.body;
    if (reply.status === 200 && (last as ActorView).state === state) return last as ActorView;
    await sleep(50);
  }
  throw new Error(`${actor} never reached ${state}; last seen ${JSON.stringify(last)}`);
}

const stateKeys = (chart: ChartNode | null) => chart?.states.map((s) => s.key);

test(
  'after a chat /api/actors lists the gateway, its heartbeat, ' +
    'the web channel, the agent, the session and the turn, each with a chart',
  async () => {
    const dashboard = await startDashboard();
    try {
      const chat = await chatSocket(dashboard);
      replyStreamed(dashboard.vendor, ['hi']);
      await chat.send('hello');
      chat.socket.close();
      const { actors } = await get<Actors>(dashboard, '/api/actors');
      const byMachine = Object.fromEntries(
        actors.map((a) => [a.machine, [a.actor.replace(/:(sk_v1_[0-9a-f]+|t_[0-9a-z]+)$/, ':*'), a.state]]),
      );
      assert.equal(byMachine, {
        gateway: ['gateway', 'running'],
        heartbeat: ['heartbeat', 'waiting'],
        channel: ['channel:web', 'connected'],
        agent: ['agent:main', 'serving'],
        session: ['session:*', 'idle'],
        turn: ['turn:*', 'done'],
      });
      const { machines } = await get<{ machines: Record<string, ChartNode> }>(dashboard, '/api/machines');
      assert.equal(
        Object.keys(byMachine).filter((machine) => !machines[machine]),
        [],
        'every listed machine has a chart',
      );
      const channel = await get<ActorView & { chart: ChartNode | null }>(dashboard, '/api/actors/channel:web');
      assert.equal(stateKeys(channel.chart), ['stopped', 'starting', 'connected', 'failed', 'refused']);
      assert.equal(
        channel.history.map((m) => [m.from ?? null, m.to, m.event]),
        [
          [null, 'stopped', 'xstate.init'],
          ['stopped', 'starting', 'START'],
          ['starting', 'connected', 'CONNECTED'],
        ],
      );
    } finally {
      await dashboard.close();
    }
  },
);

test('an MCP server is an mcp_server actor: idle, connecting, connected, with its chart', async () => {
  const dashboard = await startDashboard({
    tools: { mcp: { enabled: true, servers: { everything: everythingStdio() } } },
  });
  try {
    const server = await reached(dashboard, 'mcp:everything', 'connected');
    // The everything server announces its tool list once more just after it connects: a move it may have made too.
    const settled = (move: { from?: string; to: string; event: string }) => move.event !== 'TOOLS_CHANGED';
    assert.equal(
      [server.machine, server.history.findLast(settled)?.from, server.history.findLast(settled)?.event],
      ['mcp_server', 'connecting', 'CONNECTED'],
    );
    // The first move happens while the runtime starts, before the dashboard follows its bus: the log has it. The
    // board folds the bus as it publishes, the log commits a moment later: read the log until it has the last move.
    const moves = async () =>
      (
        await get<{ events: Array<Envelope<'actor.transitioned'>> }>(
          dashboard,
          '/api/events?type=actor.transitioned&order=asc&limit=1000',
        )
      ).events
        .filter((e) => e.data.actor === 'mcp:everything')
        .map((e) => [e.data.from ?? null, e.data.to, e.data.event]);
    const logged = await until(
      'the log to hold the move to connected',
      async () => {
        const seen = await moves();
        return seen.some(([, to]) => to === 'connected') ? seen : undefined;
      },
      30_000,
      moves,
    );
    assert.equal(
      logged.filter(([, , event]) => event !== 'TOOLS_CHANGED'),
      [
        [null, 'idle', 'xstate.init'],
        ['idle', 'connecting', 'CONNECT'],
        ['connecting', 'connected', 'CONNECTED'],
      ],
    );
    assert.equal(
      logged
        .filter(([, , event]) => event === 'TOOLS_CHANGED')
        .filter(([from, to]) => from !== to || to !== 'connected'),
      [],
      'a new tool list keeps the server connected',
    );
    const { machines } = await get<{ machines: Record<string, ChartNode> }>(dashboard, '/api/machines');
    assert.equal(stateKeys(machines.mcp_server ?? null), [
      'idle',
      'connecting',
      'connected',
      'failed',
      'closing',
      'disabled',
    ]);
    assert.equal(stateKeys(machines.cron ?? null)?.includes('scheduled'), true);
  } finally {
    await dashboard.close();
  }
});

test('an MCP server removed from the config ends on the machines page, as a child of the gateway', async () => {
  const servers = { a: filesystemStdio(tmpdir()), b: filesystemStdio(tmpdir()) };
  const dashboard = await startDashboard({ tools: { mcp: { enabled: true, servers } } });
  try {
    const connected = await reached(dashboard, 'mcp:a', 'connected');
    await reached(dashboard, 'mcp:b', 'connected');
    assert.equal([connected.parent, connected.context], ['gateway', { tools: 14 }]);
    const path = join(dashboard.home.home, 'config.json');
    const config = JSON.parse(readFileSync(path, 'utf8')) as { tools: { mcp: { servers: Record<string, unknown> } } };
    delete config.tools.mcp.servers.a;
    writeFileSync(path, JSON.stringify(config, null, 2));
    const actor = (id: string) => get<ActorView>(dashboard, `/api/actors/${id}`);
    const ended = await until(
      'mcp:a to end',
      async () => ((await actor('mcp:a')).stopped ? actor('mcp:a') : undefined),
      30_000,
    );
    assert.equal(
      [ended.state, ended.stopped, ended.reason, ended.parent, ended.history.slice(-2).map((m) => [m.to, m.event])],
      [
        'disabled',
        true,
        'stopped',
        'gateway',
        [
          ['closing', 'STOP'],
          ['disabled', 'done.close'],
        ],
      ],
    );
    const b = await actor('mcp:b');
    assert.equal([b.state, b.stopped], ['connected', false]);
  } finally {
    await dashboard.close();
  }
});

test.run();
