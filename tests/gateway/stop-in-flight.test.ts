import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Channel } from '../../adapters/channels/channel.js';
import { Gateway } from '../../actors/gateway/gateway.js';
import { loadConfig } from '../../store/config/index.js';
import { EventLog } from '../../store/log/event-log.js';
import { openGatewayLogs, type GatewayLogs } from '../../store/logs/logger.js';
import { writeLastChannel } from '../../store/state.js';
import { eventually } from '../support/eventually.js';
import { ManualClock } from '../support/gateway-clock.js';
import { startGatewayModel, type GatewayModel } from '../support/gateway-model.js';
import { modelEntry } from '../support/gateway-process.js';
import { freePort } from '../support/telegram-emulator.js';
import { tempHome, type TempHome } from '../support/temp-home.js';

/** Work the test holds: `reached` resolves with what arrived at the gate, which waits until `open()`. */
interface Gate<T> {
  reached: Promise<T>;
  arrive(value: T): Promise<void>;
  open(): void;
}

function gate<T>(): Gate<T> {
  let arrived: (value: T) => void = () => undefined;
  let open: () => void = () => undefined;
  const reached = new Promise<T>((resolve) => (arrived = resolve));
  const opened = new Promise<void>((resolve) => (open = resolve));
  return {
    reached,
    arrive: (value) => {
      arrived(value);
      return opened;
    },
    open: () => open(),
  };
}

/**
 * Channels that connect at once (the first one then receives `inbound`, if given); the first one's sends, or its
 * stop, last until the test opens their gate.
 */
function heldChannels(
  held: 'send' | 'stop',
  inbound?: string,
): { create: () => Promise<Channel>; send: Gate<string>; stop: Gate<void> } {
  const send = gate<string>();
  const stop = gate<void>();
  (held === 'send' ? stop : send).open();
  let built = 0;
  const create = async (): Promise<Channel> => {
    const first = ++built === 1;
    return {
      kind: 'held',
      capabilities: { commands: [], streaming: false, maxMessageLength: 4000 },
      start: async (hooks) => {
        hooks.onConnected();
        if (first && inbound !== undefined)
          hooks.onMessage({
            messageId: 'm1',
            chat: 'direct:42',
            replyTo: '42',
            sender: '42',
            senderAliases: ['42'],
            text: inbound,
            mentioned: false,
          });
      },
      stop: () => (first ? stop.arrive() : Promise.resolve()),
      send: async (_replyTo, text) => {
        if (first) await send.arrive(text);
        return `s${built}`;
      },
      edit: async () => undefined,
      typing: async () => undefined,
    };
  };
  return { create, send, stop };
}

interface Running {
  home: TempHome;
  model: GatewayModel;
  logs: GatewayLogs;
  gateway: Gateway;
  clock: ManualClock;
  held: ReturnType<typeof heldChannels>;
  config: { channel_list: { held: { enabled: boolean; type: string; settings: Record<string, unknown> } } };
}

const writeConfig = (home: TempHome, config: object): void =>
  writeFileSync(join(home.home, 'config.json'), JSON.stringify(config));

/** A gateway on a hand-moved clock whose heartbeat has tasks and whose last active chat is on the held channel. */
async function startGateway(
  held: 'send' | 'stop',
  options: { inbound?: string; drainMs?: number; leftWorkMs?: number } = {},
): Promise<Running> {
  const home = tempHome();
  const model = await startGatewayModel();
  const config = {
    version: 2,
    gateway: { port: await freePort(), log_level: 'info' },
    agents: { defaults: { model: 'fast' } },
    model_list: [modelEntry(model.url)],
    channel_list: {
      held: { enabled: true, type: 'held', settings: { typing: false, allow_from: ['*'] } as Record<string, unknown> },
    },
  };
  writeConfig(home, config);
  mkdirSync(home.workspace, { recursive: true });
  writeFileSync(join(home.workspace, 'HEARTBEAT.md'), '- check the inbox\n');
  writeLastChannel(home.workspace, {
    channel: 'held',
    account: 'default',
    chat: 'direct:42',
    reply_to: '42',
    at: '2026-11-22T00:00:00.000Z',
  });
  const loaded = loadConfig({ env: home.env });
  const logs = openGatewayLogs(loaded);
  const clock = new ManualClock();
  const channels = heldChannels(held, options.inbound);
  const gateway = await Gateway.start({
    loaded,
    env: home.env,
    logs,
    scheduler: clock,
    createChannel: channels.create,
    ...(options.drainMs !== undefined ? { drainMs: options.drainMs } : {}),
    ...(options.leftWorkMs !== undefined ? { leftWorkMs: options.leftWorkMs } : {}),
  });
  return { home, model, logs, gateway, clock, held: channels, config };
}

/** Stops the gateway; resolves with whether the stop had returned by the time its event log was closed. */
async function stopHolding(running: Running, release: () => void): Promise<boolean> {
  let returned = false;
  const stopping = running.gateway.stop().then(() => {
    returned = true;
  });
  // The held work outlives the event log, as an HTTP request to a chat platform can.
  assert.is(await eventually(() => existsSync(join(running.home.sessions, 'writer.pid')), false), false);
  const returnedBeforeRelease = returned;
  release();
  await stopping;
  running.logs.close();
  await new Promise((resolve) => setImmediate(resolve));
  return returnedBeforeRelease;
}

/**
 * The events recorded from the gateway's `gateway.stopping` on that are about work (turns, ticks, messages, channels).
 */
function workRecordedAfterStopping(home: TempHome): string[] {
  const log = EventLog.open(home.sessions, { readOnly: true });
  const events = log.read();
  log.close();
  const from = events.findLastIndex((e) => e.type === 'gateway.stopping');
  return events.slice(from).flatMap((e) => {
    if (/^(heartbeat|turn|provider|message|channel)\./.test(e.type)) return [e.type];
    return e.type === 'actor.transitioned' && e.data.machine === 'channel'
      ? [`${e.data.actor} ${e.data.from}->${e.data.to}`]
      : [];
  });
}

const readLog = (path: string): string => readFileSync(path, 'utf8');
const gatewayLogLast = (home: TempHome): string | undefined =>
  readLog(join(home.home, 'logs', 'gateway.log'))
    .trimEnd()
    .split('\n')
    .at(-1)
    ?.replace(/^\S+ /, '');

async function withRejections(run: (rejections: unknown[]) => Promise<void>): Promise<void> {
  const rejections: unknown[] = [];
  const listener = (reason: unknown): void => {
    rejections.push(reason);
  };
  process.on('unhandledRejection', listener);
  try {
    await run(rejections);
  } finally {
    process.off('unhandledRejection', listener);
  }
}

test(
  'a stop that gives up draining while a heartbeat answer is being sent ' +
    'returns once the send is done; nothing is recorded after the stop',
  () =>
    withRejections(async (rejections) => {
      const running = await startGateway('send', { drainMs: 0 });
      const { home, model, clock, held } = running;
      clock.advance(30 * 60_000);
      assert.match(await held.send.reached, /^echo: Heartbeat: run the periodic tasks/);
      assert.is(await stopHolding(running, held.send.open), false);
      assert.equal(rejections, []);
      assert.equal(workRecordedAfterStopping(home), ['channel:held connected->stopped']);
      assert.is(readLog(join(home.workspace, 'heartbeat.log')), '');
      assert.is(gatewayLogLast(home), 'INFO gateway stopped');
      await model.close();
      home.remove();
    }),
);

test('a stop while a heartbeat tick waits for the turn engine starts no turn and records no tick', () =>
  withRejections(async (rejections) => {
    const { home, model, logs, gateway, clock } = await startGateway('send');
    clock.advance(30 * 60_000);
    await gateway.stop();
    logs.close();
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(rejections, []);
    assert.equal(
      workRecordedAfterStopping(home).filter((type) => !type.startsWith('channel')),
      [],
    );
    assert.is(model.requests, 0);
    assert.is(readLog(join(home.workspace, 'heartbeat.log')), '');
    await model.close();
    home.remove();
  }));

test(
  'a stop while a config reload restarts a channel returns ' + 'once the reload is done, and the channel stays stopped',
  () =>
    withRejections(async (rejections) => {
      const running = await startGateway('stop');
      const { home, model, gateway, held, config, clock } = running;
      assert.is(await eventually(() => gateway.readiness().ready, true), true);
      config.channel_list.held.settings.allow_from = ['42'];
      writeConfig(home, config);
      // The config-file check runs on the gateway's clock.
      clock.advance(2000);
      await held.stop.reached;
      assert.is(await stopHolding(running, held.stop.open), false);
      assert.equal(rejections, []);
      assert.equal(workRecordedAfterStopping(home), [], 'the channel the reload stopped stays stopped');
      assert.is(gatewayLogLast(home), 'INFO gateway stopped');
      await model.close();
      home.remove();
    }),
);

test(
  'a stop that gives up draining returns once a reply being sent is done; ' +
    'the reply is not recorded after the stop',
  () =>
    withRejections(async (rejections) => {
      const running = await startGateway('send', { inbound: 'hello', drainMs: 0 });
      const { home, model, held } = running;
      assert.is(await held.send.reached, 'echo: hello');
      assert.is(await stopHolding(running, held.send.open), false);
      assert.equal(rejections, []);
      assert.equal(workRecordedAfterStopping(home), ['channel:held connected->stopped']);
      assert.equal(
        readLog(join(home.home, 'logs', 'gateway.log'))
          .trimEnd()
          .split('\n')
          .slice(-2)
          .map((line) => line.replace(/^\S+ /, '')),
        ['WARN running turns did not finish in time and are aborted', 'INFO gateway stopped'],
      );
      await model.close();
      home.remove();
    }),
);

test(
  'a stop whose reply send never finishes returns after its ' + 'wait for left work, and the late send records nothing',
  () =>
    withRejections(async (rejections) => {
      const running = await startGateway('send', { inbound: 'hello', drainMs: 0, leftWorkMs: 50 });
      const { home, model, held, gateway, logs } = running;
      assert.is(await held.send.reached, 'echo: hello');
      await gateway.stop();
      assert.equal(
        readLog(join(home.home, 'logs', 'gateway.log'))
          .trimEnd()
          .split('\n')
          .slice(-3)
          .map((line) => line.replace(/^\S+ /, '')),
        [
          'WARN running turns did not finish in time and are aborted',
          'WARN work still in flight at the stop (a send, a heartbeat or cron run) is left behind',
          'INFO gateway stopped',
        ],
      );
      logs.close();
      held.send.open();
      await new Promise((resolve) => setImmediate(resolve));
      assert.equal(rejections, []);
      assert.equal(workRecordedAfterStopping(home), ['channel:held connected->stopped']);
      assert.is(gatewayLogLast(home), 'INFO gateway stopped');
      await model.close();
      home.remove();
    }),
);

test.run();
