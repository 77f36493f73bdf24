import { SUPPORTED_KINDS } from '../../actors/gateway/channel-factory.js';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Gateway } from '../../actors/gateway/gateway.js';
import type { Envelope } from '../../bus/index.js';
import { loadConfig } from '../../store/config/index.js';
import { openGatewayLogs, type GatewayLogs } from '../../store/logs/logger.js';
import { startGatewayModel, type GatewayModel } from '../support/gateway-model.js';
import { modelEntry } from '../support/gateway-process.js';
import { busQuiet } from '../support/quiet.js';
import { filesystemEntry } from '../support/mcp-servers.js';
import { freePort, TelegramEmulator } from '../support/telegram-emulator.js';
import { tempHome, type TempHome } from '../support/temp-home.js';
import { alive } from '../support/process-alive.js';

const A = '700001:alpha-token-AAAA';
const B = '700002:beta-token-BBBB';

interface Context {
  home: TempHome;
  model: GatewayModel;
  emulator: TelegramEmulator;
  logs: GatewayLogs;
  gateway: Gateway;
  events: Envelope[];
  config: Record<string, unknown>;
}

const supervisor = suite<Context>('gateway supervisor (in process)');

function writeConfig(context: Context): void {
  writeFileSync(join(context.home.home, 'config.json'), JSON.stringify({ version: 2, ...context.config }, null, 2));
}

// Reloads here spawn and end channel processes: seconds on a loaded machine, so the budget is far above that.
const until = async (check: () => boolean, what: string, timeoutMs = 30_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

supervisor.before.each(async (context) => {
  context.home = tempHome();
  context.model = await startGatewayModel();
  context.emulator = await TelegramEmulator.start();
  context.config = {
    gateway: { port: await freePort(), log_level: 'debug' },
    agents: { defaults: { model: 'fast' } },
    model_list: [modelEntry(context.model.url)],
    heartbeat: { enabled: false },
    channel_list: {
      alpha: {
        enabled: true,
        type: 'telegram',
        settings: { token: A, base_url: context.emulator.url, poll_timeout_seconds: 1, allow_from: ['*'] },
      },
      beta: {
        enabled: true,
        type: 'telegram',
        settings: { token: B, base_url: context.emulator.url, poll_timeout_seconds: 1, allow_from: ['*'] },
      },
    },
  };
  writeConfig(context);
  const loaded = loadConfig({ env: context.home.env });
  context.logs = openGatewayLogs(loaded);
  context.gateway = await Gateway.start({ loaded, env: context.home.env, logs: context.logs, drainMs: 8000 });
  context.events = [];
  context.gateway.core.bus.events$.subscribe((e) => context.events.push(e));
  await until(() => context.gateway.readiness().ready, 'ready');
  context.events.length = 0;
});

supervisor.after.each(async (context) => {
  if (context.gateway.url) await context.gateway.stop().catch(() => undefined);
  context.logs.close();
  await context.emulator.stop();
  await context.model.close();
  context.home.remove();
});

supervisor('GET /health and GET /ready answer JSON on gateway.host:port', async ({ gateway }) => {
  const health = await fetch(`${gateway.url}/health`);
  assert.is(health.status, 200);
  assert.equal(await health.json(), { status: 'ok' });
  const ready = await fetch(`${gateway.url}/ready`);
  assert.is(ready.status, 200);
  assert.equal(await ready.json(), {
    status: 'ready',
    channels: [
      { name: 'alpha', state: 'connected' },
      { name: 'beta', state: 'connected' },
    ],
  });
  assert.is((await fetch(`${gateway.url}/other`)).status, 404);
});

supervisor('a config edit restarts only the channel whose entry changed', async (context) => {
  const connected = (name: string): number =>
    context.events.filter((e) => e.type === 'channel.connected' && e.data.channel === name).length;
  const channels = context.config.channel_list as Record<string, { settings: Record<string, unknown> }>;
  channels.beta!.settings.allow_from = ['@alice'];
  writeConfig(context);
  await until(() => connected('beta') === 1, 'beta to reconnect');
  await busQuiet(context.gateway.core.bus, { quietMs: 300 });
  assert.is(connected('alpha'), 0);
  const reloaded = context.events.find((e) => e.type === 'config.reloaded');
  assert.equal(reloaded?.type === 'config.reloaded' ? reloaded.data.changed : [], [
    'channel_list.beta.settings.allow_from',
  ]);
  await context.emulator.say(B, 'from mallory', { userId: 1003, userName: 'mallory' });
  await context.emulator.say(B, 'from alice', { userId: 1001, userName: 'alice' });
  await context.emulator.waitForBotMessages(B, 1001, 1);
  // No turn for mallory: the one message she gets is a pairing code.
  assert.equal(
    context.emulator.botMessages(B, 1003).map((m) => m.text.split('\n')[0]!.replace(/[A-Z2-9]{8}$/, 'CODE')),
    ['Pairing code: CODE'],
  );
});

supervisor(
  'deleting config.json while the gateway runs keeps the running config: every channel stays, and the log says why',
  async (context) => {
    const path = join(context.home.home, 'config.json');
    rmSync(path);
    await until(() => context.events.some((e) => e.type === 'config.rejected'), 'the deletion to be noticed');
    await context.emulator.say(A, 'still there?', { userId: 1001 });
    assert.equal(
      (await context.emulator.waitForBotMessages(A, 1001, 1)).map((m) => m.text),
      ['echo: still there?'],
    );
    assert.equal(
      context.events.filter(
        (e) => e.type === 'channel.connected' || e.type === 'channel.failed' || e.type === 'config.reloaded',
      ),
      [],
      'no channel restarted',
    );
    assert.equal(await (await fetch(`${context.gateway.url}/ready`)).json(), {
      status: 'ready',
      channels: [
        { name: 'alpha', state: 'connected' },
        { name: 'beta', state: 'connected' },
      ],
    });
    assert.match(
      readFileSync(join(context.home.home, 'logs', 'gateway.log'), 'utf8'),
      `config: the edit of ${path} was rejected and the running config stays ((file): ` +
        `${path} is missing; put it back to apply changes)`,
    );
  },
);

supervisor(
  'a tools.mcp edit stops a removed MCP server at once, before any turn, and leaves the other running',
  async (context) => {
    const server = { enabled: true, command: process.execPath, args: [filesystemEntry, context.home.home] };
    // Switching MCP on needs a restart: this gateway starts with the two servers.
    await context.gateway.stop();
    context.config.tools = { mcp: { enabled: true, servers: { a: server, b: server } } };
    writeConfig(context);
    context.gateway = await Gateway.start({
      loaded: loadConfig({ env: context.home.env }),
      env: context.home.env,
      logs: context.logs,
      drainMs: 8000,
    });
    context.gateway.core.bus.events$.subscribe((e) => context.events.push(e));
    const engine = await context.gateway.engine();
    const mcp = engine.mcp!;
    assert.is((await mcp.settled('a')).state, 'connected');
    assert.is((await mcp.settled('b')).state, 'connected');
    const [pidA, pidB] = [mcp.pid('a')!, mcp.pid('b')!];
    context.events.length = 0;
    context.config.tools = { mcp: { enabled: true, servers: { b: server } } };
    writeConfig(context);
    await until(() => context.events.some((e) => e.type === 'config.reloaded'), 'the reload removing a');
    await until(() => !alive(pidA), "a's process to end");
    assert.is(mcp.pid('b'), pidB);
    assert.equal(
      mcp.statuses().map((s) => s.name),
      ['b'],
    );
    assert.equal(
      context.events.filter((e) => e.type === 'turn.started'),
      [],
    );
  },
);

supervisor('a changed model_list serves the next turn without a restart', async (context) => {
  const second = await startGatewayModel();
  try {
    const before = context.model.requests;
    context.config.model_list = [modelEntry(second.url)];
    writeConfig(context);
    await until(() => context.events.some((e) => e.type === 'config.reloaded'), 'the reload');
    await context.emulator.say(A, 'which model?', { userId: 1001 });
    assert.equal(
      (await context.emulator.waitForBotMessages(A, 1001, 1)).map((m) => m.text),
      ['echo: which model?'],
    );
    assert.is(second.requests, 1);
    assert.is(context.model.requests, before);
    assert.equal(
      context.events.filter((e) => e.type === 'channel.connected'),
      [],
    );
  } finally {
    await second.close();
  }
});

supervisor(
  'a changed agents.defaults.model picks a model added to model_list, from the next turn on',
  async (context) => {
    const second = await startGatewayModel();
    try {
      context.config.model_list = [modelEntry(context.model.url), { ...modelEntry(second.url), model_name: 'smart' }];
      context.config.agents = { defaults: { model: 'smart' } };
      writeConfig(context);
      await until(() => context.events.some((e) => e.type === 'config.reloaded'), 'the reload');
      await context.emulator.say(A, 'hello', { userId: 1001 });
      await context.emulator.waitForBotMessages(A, 1001, 1);
      const asked = context.events.flatMap((e) => (e.type === 'provider.requested' ? [e.data.model_name] : []));
      assert.equal(asked, ['smart']);
      assert.is(second.requests, 1);
    } finally {
      await second.close();
    }
  },
);

supervisor('stopping drains: a running turn still delivers its reply before the gateway closes', async (context) => {
  await context.emulator.say(A, 'SLOW task', { userId: 1001 });
  await until(() => context.events.some((e) => e.type === 'provider.requested'), 'the turn to call the model');
  await context.gateway.stop('SIGTERM');
  assert.equal(
    context.emulator.botMessages(A, 1001).map((m) => m.text),
    ['echo: SLOW task'],
  );
  const types = context.events.map((e) => e.type);
  assert.ok(types.indexOf('gateway.stopping') < types.indexOf('message.sent'));
  assert.match(readFileSync(join(context.home.home, 'logs', 'gateway.log'), 'utf8'), /gateway stopped signal=SIGTERM/);
});

const silent = suite('readiness while a channel cannot connect');

silent(
  '/ready is 503 while a channel is still connecting, ' +
    'and stays 503 with the reason while one cannot start; /health is 200',
  async () => {
    const home = tempHome();
    const sockets: Socket[] = [];
    const blackHole: Server = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => blackHole.listen(0, '127.0.0.1', resolve));
    const port = (blackHole.address() as { port: number }).port;
    writeFileSync(
      join(home.home, 'config.json'),
      JSON.stringify({
        version: 2,
        gateway: { port: await freePort() },
        heartbeat: { enabled: false },
        channel_list: {
          stuck: { enabled: true, type: 'telegram', settings: { token: A, base_url: `http://127.0.0.1:${port}` } },
          broken: { enabled: true, type: 'carrier-pigeon' },
        },
      }),
    );
    const loaded = loadConfig({ env: home.env });
    const logs = openGatewayLogs(loaded);
    const gateway = await Gateway.start({ loaded, env: home.env, logs });
    try {
      await until(
        () => gateway.readiness().channels.some((c) => c.name === 'broken' && c.state === 'refused'),
        'the unknown kind to be refused',
      );
      const ready = await fetch(`${gateway.url}/ready`);
      assert.is(ready.status, 503);
      const body = (await ready.json()) as {
        status: string;
        channels: Array<{ name: string; state: string; reason?: string }>;
      };
      assert.is(body.status, 'cannot_start');
      assert.equal(body.channels[0], { name: 'stuck', state: 'starting' });
      const reason =
        'channel_list.broken.type "carrier-pigeon" is not supported ' +
        `by this gateway (supported: ${SUPPORTED_KINDS.join(', ')})`;
      assert.equal(body.channels[1], { name: 'broken', state: 'refused', reason });
      // The stuck channel's request must be in the black hole before it is cut: on a loaded machine the refusal was
      // seen first, nothing was cut, and the request hung (a loop run timed out here).
      await until(() => sockets.length > 0, 'the stuck channel to connect');
      sockets.forEach((s) => s.destroy());
      // Every channel has reported (the stuck one failed and retries), but the broken one cannot start: not ready.
      await until(() => gateway.readiness().reported, 'the stuck channel to report its failure');
      const after = await fetch(`${gateway.url}/ready`);
      assert.is(after.status, 503);
      const reported = (await after.json()) as {
        status: string;
        reason: string;
        channels: Array<{ name: string; state: string }>;
      };
      assert.equal(
        [reported.status, reported.reason, reported.channels.map((c) => c.state)],
        ['cannot_start', `channel broken cannot start: ${reason}`, ['failed', 'refused']],
      );
      assert.is((await fetch(`${gateway.url}/health`)).status, 200);
    } finally {
      await gateway.stop();
      logs.close();
      sockets.forEach((s) => s.destroy());
      await new Promise<void>((resolve) => blackHole.close(() => resolve()));
      home.remove();
    }
  },
);

const lifecycle = suite('the gateway and heartbeat as actors');

lifecycle(
  'the gateway moves starting → running → draining → stopped and its heartbeat follows, as actor.transitioned events',
  async () => {
    const home = tempHome();
    writeFileSync(
      join(home.home, 'config.json'),
      JSON.stringify({
        version: 2,
        gateway: { port: await freePort() },
        heartbeat: { enabled: true },
        channel_list: {},
      }),
    );
    const loaded = loadConfig({ env: home.env });
    const logs = openGatewayLogs(loaded);
    const moves: string[] = [];
    const gateway = await Gateway.start({
      loaded,
      env: home.env,
      logs,
      onRuntime: (runtime) =>
        runtime.bus.events$.subscribe((e) => {
          if (e.type === 'actor.transitioned' && (e.data.machine === 'gateway' || e.data.machine === 'heartbeat'))
            moves.push(`${e.data.actor}: ${e.data.from ?? ''}->${e.data.to} ${e.data.event}`);
        }),
    });
    try {
      assert.equal(moves, [
        'gateway: ->starting xstate.init',
        'heartbeat: stopped->waiting SCHEDULE',
        'gateway: starting->running done.start',
      ]);
    } finally {
      await gateway.stop('SIGINT');
      logs.close();
      home.remove();
    }
    // The drain stops the heartbeat as it begins, before the gateway's own move is published.
    assert.equal(moves.slice(3), [
      'heartbeat: waiting->stopped STOP',
      'gateway: running->draining STOP',
      'gateway: draining->stopped done.close',
    ]);
  },
);

supervisor.run();
silent.run();
lifecycle.run();
