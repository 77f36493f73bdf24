import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createActor, fromCallback, fromPromise, waitFor, type AnyActorRef } from 'xstate';
import { BoardInspector } from '../../actors/board.js';
import type { Runtime } from '../../actors/runtime.js';
import '../../actors/gateway/gateway.js';
import { gatewayBoard, gatewayMachine, type ChannelSpec, type StartOutput } from '../../machines/gateway.js';
import { channelBoard, channelMachine } from '../../machines/channel.js';
import { cronMachine, type CronEntry } from '../../machines/cron.js';
import { loadConfig } from '../../store/config/index.js';
import { given, movesOf, type Stage } from '../support/actor-kit.js';
import { tempHome } from '../support/temp-home.js';

const spec = (name: string): ChannelSpec => ({
  name,
  kind: 'telegram',
  account: name,
  backoff: { baseMs: 1000, maxMs: 60_000 },
});

interface Script {
  start?: () => Promise<StartOutput>;
  /** The engine's load: resolves when the test says. */
  engine?: () => Promise<Runtime>;
  scheduled?: boolean;
}

/** The gateway machine with effects that only record: which child effects run now, and which channels stopped. */
function gateway(stage: Stage, script: Script = {}) {
  const home = tempHome();
  const loaded = loadConfig({ env: home.env });
  // Only the config is read from the home: the effects record, they write nothing there.
  home.remove();
  const running = new Set<string>();
  const stopped: string[] = [];
  const child = (name: string) =>
    fromCallback(() => {
      running.add(name);
      return () => running.delete(name);
    });
  const machine = gatewayMachine.provide({
    actors: {
      start: fromPromise(script.start ?? (async () => ({ channels: [spec('alpha'), spec('beta')] }))),
      dispatcher: child('dispatcher'),
      outbox: child('outbox'),
      heartbeat: child('heartbeat'),
      // Cron reads its store until it stops.
      cron: cronMachine.provide({
        actors: {
          read: fromPromise<CronEntry[] | undefined>(({ signal }) => {
            running.add('cron');
            signal.addEventListener('abort', () => running.delete('cron'));
            return new Promise(() => undefined);
          }),
        },
      }),
      services: child('services'),
      configWatch: child('configWatch'),
      // Links that connect at once: every channel reports as soon as it starts.
      channel: channelMachine.provide({
        actors: { link: fromCallback(({ sendBack }) => void sendBack({ type: 'CONNECTED' })) },
      }),
      readiness: fromCallback(({ sendBack }) => void queueMicrotask(() => sendBack({ type: 'REPORTED' }))),
      engine: fromPromise(script.engine ?? (() => new Promise<Runtime>(() => undefined))),
      channelsStopped: fromPromise<void, { names: readonly string[] }>(
        async ({ input }) => void stopped.push(...input.names),
      ),
      close: fromPromise<void, { names: readonly string[] }>(async () => undefined),
    },
  });
  const inspect = new BoardInspector(stage.bus, { gateway: gatewayBoard, channel: channelBoard }).inspect;
  const actor = createActor(machine, { input: { loaded, scheduled: script.scheduled ?? true }, inspect }).start();
  return { actor, running, stopped, loaded };
}

const children = (actor: AnyActorRef): string[] => Object.keys(actor.getSnapshot().children).sort();
const channelState = (actor: AnyActorRef, name: string): unknown =>
  actor.getSnapshot().children[`channel:${name}`]?.getSnapshot().value;

test(
  'given a start with two channels, then the dispatcher, ' +
    'the outbox and a channel actor each are children by system id',
  async () => {
    const stage = given();
    const { actor } = gateway(stage);
    await waitFor(actor, (s) => s.matches({ running: { schedule: { on: 'cron' } } }));
    for (const id of ['dispatcher', 'outbox', 'channel:alpha', 'channel:beta', 'heartbeat', 'cron']) {
      assert.ok(actor.system.get(id), `${id} is in the system`);
    }
    assert.equal([channelState(actor, 'alpha'), channelState(actor, 'beta')], ['connected', 'connected']);
    assert.equal(movesOf(stage.published, 'channel:alpha'), [
      '->stopped xstate.init',
      'stopped->starting START',
      'starting->connected CONNECTED',
    ]);
  },
);

test(
  'when the config reloads, then the changed channel stops and a fresh one is spawned, ' +
    'and the board shows the RELOAD',
  async () => {
    const stage = given();
    const { actor, stopped, loaded } = gateway(stage);
    await waitFor(actor, (s) => s.matches({ running: { channels: 'reported' } }));
    const before = actor.system.get('channel:beta');
    actor.send({
      type: 'RELOAD',
      loaded,
      changed: ['channel_list.beta.settings.token', 'channel_list.gamma'],
      restart: ['beta', 'gamma'],
      start: [spec('beta'), spec('gamma')],
    });
    await waitFor(
      actor,
      (s) => s.matches({ running: { config: 'idle' } }) && s.children['channel:gamma'] !== undefined,
    );
    assert.equal(stopped, ['beta', 'gamma']);
    assert.ok(actor.system.get('channel:beta') !== before, 'beta is a new actor');
    assert.equal(
      children(actor).filter((id) => id.startsWith('channel:')),
      ['channel:alpha', 'channel:beta', 'channel:gamma'],
    );
    assert.equal(movesOf(stage.published, 'channel:beta').slice(3), [
      'connected->stopped STOP',
      '->stopped xstate.init',
      'stopped->starting START',
      'starting->connected CONNECTED',
    ]);
    const reloads = stage.published.filter(
      (e) => e.type === 'actor.transitioned' && e.data.actor === 'gateway' && e.data.event === 'RELOAD',
    );
    assert.equal(
      reloads.map((e) => e.type === 'actor.transitioned' && e.data.context),
      [{ engine: 'loading', schedule: 'on', config: 'reloading' }],
    );
  },
);

test('when the schedule lease is lost and won back, then the heartbeat and cron stop and start again', async () => {
  const stage = given();
  const { actor, running } = gateway(stage);
  await waitFor(actor, (s) => s.matches({ running: { schedule: { on: 'cron' } } }));
  actor.send({ type: 'SCHEDULE', on: false, reason: 'lease lost' });
  assert.equal(
    [actor.getSnapshot().context.scheduleReason, running.has('heartbeat'), running.has('cron')],
    ['lease lost', false, false],
  );
  actor.send({ type: 'SCHEDULE', on: true, reason: 'lease won' });
  assert.equal([running.has('heartbeat'), running.has('cron')], [true, true]);
});

test('given a gateway that does not schedule, then neither heartbeat nor cron runs', async () => {
  const stage = given();
  const { actor, running } = gateway(stage, { scheduled: false });
  await waitFor(actor, (s) => s.matches({ running: { channels: 'reported' } }));
  assert.equal([running.has('heartbeat'), running.has('cron'), running.has('dispatcher')], [false, false, true]);
});

test(
  'when stopped while the engine loads, ' + 'then it drains only once the engine has loaded, and stops every child',
  async () => {
    const stage = given();
    let load: (engine: Runtime) => void = () => undefined;
    const engine = {} as Runtime;
    const { actor, running } = gateway(stage, { engine: () => new Promise<Runtime>((resolve) => (load = resolve)) });
    await waitFor(actor, (s) => s.matches({ running: { engine: 'loading' } }));
    actor.send({ type: 'STOP', signal: 'SIGTERM' });
    assert.ok(actor.getSnapshot().matches('running'), 'still running while the engine loads');
    load(engine);
    const done = await waitFor(actor, (s) => s.status === 'done');
    assert.equal(
      [done.value, done.context.engine === engine, done.context.signal, [...running]],
      ['stopped', true, 'SIGTERM', []],
    );
    assert.equal(movesOf(stage.published, 'gateway').slice(-2), [
      'running->draining done.engine',
      'draining->stopped done.close',
    ]);
  },
);

test('given a start that fails, then it stops at once, keeping why, and spawns nothing', async () => {
  const stage = given();
  const failure = Object.assign(new Error('port 18790 is in use'), { code: 'EADDRINUSE' });
  const { actor } = gateway(stage, { start: async () => Promise.reject(failure) });
  const stopped = await waitFor(actor, (s) => s.status === 'done');
  const spawned = children(actor).filter((id) => id.startsWith('channel:') || id === 'dispatcher' || id === 'outbox');
  assert.equal([stopped.value, stopped.context.failure, spawned], ['stopped', failure, []]);
  assert.equal(movesOf(stage.published, 'gateway'), ['->starting xstate.init', 'starting->stopped error.start']);
});

test.run();
