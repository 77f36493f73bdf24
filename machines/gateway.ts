import {
  assign,
  enqueueActions,
  fromCallback,
  fromPromise,
  setup,
  stateIn,
  type AnyActorRef,
  type StateValue,
} from 'xstate';
import type { Board, ShownContext } from './board.js';
import { channelMachine, type ChannelInput } from './channel.js';
import { cronMachine } from './cron.js';

/**
 * What the host's config and turn engine are: `machines/` imports no store or actor types, so the host registers them
 * by augmenting this interface (`declare module`) with `loaded` and `engine`.
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled in by the host's declaration merging
export interface GatewayRegister {}
type Loaded = GatewayRegister extends { loaded: infer T } ? T : unknown;
type Engine = GatewayRegister extends { engine: infer T } ? T : unknown;

/** A channel account the gateway runs: what its spawned channel actor starts from. */
export type ChannelSpec = ChannelInput;

/**
 * `STOP`: a signal or the host asked the gateway to stop. `RELOAD`: the config changed; the channels named in
 * `restart` stop, and once their instances have stopped, those in `start` are spawned. `ADD_CHANNELS`: channels
 * of kinds a plugin added, once the plugins have loaded. `SCHEDULE`: the heartbeat and cron run here, or not (a
 * cluster member holds the schedule lease, or lost it). `ENGINE_WANTED`: someone needs the turn engine now.
 * `REPORTED`: every channel has connected or failed with a reason.
 */
export type GatewayEvent =
  | { type: 'STOP'; signal?: string }
  | {
      type: 'RELOAD';
      loaded: Loaded;
      changed: readonly string[];
      restart: readonly string[];
      start: readonly ChannelSpec[];
    }
  | { type: 'ADD_CHANNELS'; start: readonly ChannelSpec[] }
  | { type: 'SCHEDULE'; on: boolean; reason: string }
  | { type: 'ENGINE_WANTED' }
  | { type: 'REPORTED' };

export interface GatewayInput {
  loaded: Loaded;
  /** Whether the heartbeat and cron run here from the start. */
  scheduled: boolean;
}

/** What the start hands the machine: the health server (when it runs) and the channels to spawn. */
export interface StartOutput {
  health?: { url: string; close(): Promise<void> };
  channels: readonly ChannelSpec[];
}

export interface GatewayContext {
  /** The config as last loaded: a reload replaces it. */
  loaded: Loaded;
  scheduled: boolean;
  /** Why the heartbeat and cron last stopped here, for the board. */
  scheduleReason: string;
  /** Someone asked for the engine before the gateway ran. */
  engineWanted: boolean;
  engine?: Engine;
  engineFailure?: unknown;
  /** Channels a reload spawns once the instances it stopped have stopped, and the config paths it changed. */
  pending: readonly ChannelSpec[];
  changed: readonly string[];
  health?: StartOutput['health'];
  /** A stop asked for while the engine loads: it drains once the load has ended. */
  stopWanted: boolean;
  /** Why the start failed, when it did. */
  failure?: unknown;
  signal?: string;
}

/** How long after the last channel reports the engine and cron start: loading them must not delay `/ready`. */
export const SETTLE_MS = 100;

/** A region's state inside `running`, as the board shows it. */
function regionOf(value: StateValue, region: string): string | undefined {
  if (typeof value === 'string' || typeof value.running !== 'object') return undefined;
  const inner = value.running[region];
  if (inner === undefined) return undefined;
  return typeof inner === 'string' ? inner : Object.keys(inner)[0];
}

export const gatewayBoard: Board<GatewayContext> = {
  id: () => 'gateway',
  state: (value) => (typeof value === 'string' ? value : (Object.keys(value)[0] ?? '')),
  shown: (_, value) => {
    const shown: ShownContext = {};
    for (const region of ['engine', 'schedule', 'config']) {
      const state = value === undefined ? undefined : regionOf(value, region);
      if (state !== undefined) shown[region] = state;
    }
    return shown;
  },
};

/** The ids of the gateway's channel children, by entry name. */
export const channelId = (name: string): string => `channel:${name}`;

function channelChildren(children: Record<string, AnyActorRef | undefined>): AnyActorRef[] {
  return Object.entries(children)
    .filter(([id, child]) => id.startsWith('channel:') && child !== undefined)
    .map(([, child]) => child as AnyActorRef);
}

/**
 * The gateway as a supervisor. `starting` runs the host's `start` (health server, log, first checks), then spawns
 * the dispatcher, the outbox and a channel actor per account (each with its `systemId`). `running` has three
 * regions: `channels` (reporting → settling → reported: every channel has connected or failed, and a moment has
 * passed), `engine` (idle → loading → loaded | failed: the turn engine loads once the channels have reported, or
 * when someone wants it sooner) and `schedule` (on: the heartbeat runs, and cron too once the channels have
 * reported | off), with `config` (idle | reloading) answering reloads by stopping and spawning channel children.
 * `draining` lets running turns finish, then stops the dispatcher, the outbox and the channels; `stopped` is final.
 * Every effect is an actor or action the host provides.
 */
export const gatewayMachine = setup({
  types: {
    input: {} as GatewayInput,
    context: {} as GatewayContext,
    events: {} as GatewayEvent,
  },
  actors: {
    start: fromPromise<StartOutput>(async () => ({ channels: [] })),
    dispatcher: fromCallback(() => undefined),
    outbox: fromCallback(() => undefined),
    channel: channelMachine,
    /** Sends `REPORTED` once every channel has reported. */
    readiness: fromCallback(() => undefined),
    /** Sends `ENGINE_WANTED` when work is routed before the engine has loaded. */
    demand: fromCallback(() => undefined),
    engine: fromPromise<Engine>(async () => {
      throw new Error('no engine provided');
    }),
    services: fromCallback(() => undefined),
    heartbeat: fromCallback(() => undefined),
    /** Cron's jobs, with the effects the host provides. */
    cron: cronMachine,
    configWatch: fromCallback(() => undefined),
    /** Resolves once the instances of the named channels have stopped. */
    channelsStopped: fromPromise<void, { names: readonly string[] }>(async () => undefined),
    drain: fromPromise<void, { signal?: string }>(async () => undefined),
    /** After the channels have stopped: what is left closes (the health server, pending deliveries). */
    close: fromPromise<void, { names: readonly string[] }>(async () => undefined),
  },
  actions: {
    started: () => {},
    engineLoaded: () => {},
    engineFailed: () => {},
    backgroundStarted: () => {},
    /** A reload's channels have restarted: `context.changed` holds the config paths it changed. */
    reloaded: () => {},
    scheduleChanged: () => {},
    /** Cron's jobs are about to stop with it. */
    cronStopping: () => {},
    /** A reload's config replaces the last; the channels it starts join those an earlier reload still waits with. */
    takeReload: assign(({ context, event }) => {
      if (event.type !== 'RELOAD') return {};
      return {
        loaded: event.loaded,
        pending: [...context.pending.filter((spec) => !event.restart.includes(spec.name)), ...event.start],
        changed: [...context.changed, ...event.changed],
      };
    }),
    /** Each channel stopped here moves to `stopped` first, so the board shows where it ended. */
    stopChannels: enqueueActions(({ enqueue, self, event }) => {
      const children = self.getSnapshot().children as Record<string, AnyActorRef | undefined>;
      const names = event.type === 'RELOAD' ? event.restart : undefined;
      const refs = names === undefined ? channelChildren(children) : names.map((n) => children[channelId(n)]);
      for (const child of refs) {
        if (!child) continue;
        enqueue.sendTo(child, { type: 'STOP' });
        enqueue.stopChild(child);
      }
    }),
    /** The channels the start or a reload asked for, or the plugins' kinds, each spawned and started. */
    spawnChannels: enqueueActions(({ enqueue, context, event }) => {
      const specs =
        'output' in event
          ? (startOutput(event.output)?.channels ?? context.pending)
          : event.type === 'ADD_CHANNELS'
            ? event.start
            : [];
      for (const spec of specs) {
        enqueue.spawnChild('channel', { id: channelId(spec.name), systemId: channelId(spec.name), input: spec });
        enqueue.sendTo(channelId(spec.name), { type: 'START' });
      }
    }),
  },
  guards: {
    scheduled: ({ context }) => context.scheduled,
    engineWanted: ({ context }) => context.engineWanted,
    stopWanted: ({ context }) => context.stopWanted,
    channelsReported: stateIn({ running: { channels: 'reported' } }),
  },
  delays: { settle: SETTLE_MS },
}).createMachine({
  id: 'gateway',
  context: ({ input }) => ({
    loaded: input.loaded,
    scheduled: input.scheduled,
    scheduleReason: '',
    engineWanted: false,
    pending: [],
    changed: [],
    stopWanted: false,
  }),
  initial: 'starting',
  invoke: { id: 'demand', src: 'demand' },
  on: {
    ENGINE_WANTED: { actions: assign({ engineWanted: true }) },
  },
  states: {
    starting: {
      invoke: {
        id: 'start',
        src: 'start',
        onDone: {
          target: 'running',
          actions: [
            assign({ health: ({ event }) => event.output.health }),
            enqueueActions(({ enqueue }) => {
              enqueue.spawnChild('dispatcher', { id: 'dispatcher', systemId: 'dispatcher' });
              enqueue.spawnChild('outbox', { id: 'outbox', systemId: 'outbox' });
            }),
            'spawnChannels',
          ],
        },
        onError: { target: 'stopped', actions: assign({ failure: ({ event }) => event.error }) },
      },
    },
    running: {
      type: 'parallel',
      entry: 'started',
      invoke: [
        { id: 'services', systemId: 'services', src: 'services' },
        { id: 'configWatch', systemId: 'configWatch', src: 'configWatch' },
      ],
      on: {
        STOP: [
          // A loading engine is waited for, so the drain has it (and closes it) rather than leaving it behind.
          {
            guard: stateIn({ running: { engine: 'loading' } }),
            actions: assign({ signal: ({ event }) => event.signal, stopWanted: true }),
          },
          { target: 'draining', actions: assign({ signal: ({ event }) => event.signal }) },
        ],
        ADD_CHANNELS: { actions: 'spawnChannels' },
      },
      states: {
        channels: {
          initial: 'reporting',
          states: {
            reporting: { invoke: { id: 'readiness', src: 'readiness' }, on: { REPORTED: 'settling' } },
            settling: { after: { settle: 'reported' } },
            reported: { entry: ['backgroundStarted', assign({ engineWanted: true })] },
          },
        },
        engine: {
          initial: 'idle',
          states: {
            idle: { always: { guard: 'engineWanted', target: 'loading' } },
            loading: {
              invoke: {
                id: 'engine',
                src: 'engine',
                onDone: {
                  target: 'loaded',
                  actions: [assign({ engine: ({ event }) => event.output }), 'engineLoaded'],
                },
                onError: {
                  target: 'failed',
                  actions: [assign({ engineFailure: ({ event }) => event.error }), 'engineFailed'],
                },
              },
            },
            loaded: { always: { guard: 'stopWanted', target: '#gateway.draining' } },
            failed: { always: { guard: 'stopWanted', target: '#gateway.draining' } },
          },
        },
        schedule: {
          initial: 'choosing',
          on: {
            SCHEDULE: [
              {
                guard: ({ context, event }) => context.scheduled !== event.on,
                target: '.choosing',
                actions: [
                  assign({ scheduled: ({ event }) => event.on, scheduleReason: ({ event }) => event.reason }),
                  'scheduleChanged',
                ],
              },
            ],
          },
          states: {
            choosing: { always: [{ guard: 'scheduled', target: 'on' }, { target: 'off' }] },
            on: {
              invoke: { id: 'heartbeat', systemId: 'heartbeat', src: 'heartbeat' },
              initial: 'waiting',
              states: {
                // Cron opens its store and reads its jobs once the channels have reported: a job due at start
                // finds its channel connected.
                waiting: { always: { guard: 'channelsReported', target: 'cron' } },
                cron: {
                  exit: 'cronStopping',
                  invoke: { id: 'cron', systemId: 'cron', src: 'cron' },
                },
              },
            },
            off: {},
          },
        },
        config: {
          initial: 'idle',
          states: {
            idle: {
              on: {
                RELOAD: { target: 'reloading', actions: ['takeReload', 'stopChannels'] },
              },
            },
            reloading: {
              // A state of the `config` region, so reentering it leaves the other regions be.
              on: {
                RELOAD: {
                  target: 'reloading',
                  reenter: true,
                  actions: ['takeReload', 'stopChannels'],
                },
              },
              invoke: {
                id: 'channelsStopped',
                src: 'channelsStopped',
                // A reload that came while another waited also waits for the stops that one started.
                input: ({ context, event }) => {
                  const restart = event.type === 'RELOAD' ? event.restart : [];
                  return { names: [...new Set([...restart, ...context.pending.map((s) => s.name)])] };
                },
                onDone: {
                  target: 'idle',
                  actions: ['spawnChannels', 'reloaded', assign({ pending: [], changed: [] })],
                },
              },
            },
          },
        },
      },
    },
    draining: {
      initial: 'turns',
      states: {
        turns: {
          invoke: {
            id: 'drain',
            src: 'drain',
            input: ({ context }) => ({ signal: context.signal }),
            onDone: 'children',
            onError: 'children',
          },
        },
        children: {
          entry: [
            enqueueActions(({ enqueue }) => {
              enqueue.stopChild('dispatcher');
              enqueue.stopChild('outbox');
            }),
            'stopChannels',
          ],
          invoke: {
            id: 'close',
            src: 'close',
            input: ({ self }) => ({ names: channelNames(self.getSnapshot().children) }),
            onDone: '#gateway.stopped',
            onError: '#gateway.stopped',
          },
        },
      },
    },
    stopped: { type: 'final' },
  },
});

/** What the start handed over, read from the event that ended `starting` (none from any other event). */
export function startedWith(event: object): StartOutput | undefined {
  return 'output' in event ? startOutput(event.output) : undefined;
}

/** The start's output, told apart from a reload's `channelsStopped` (which has none). */
function startOutput(output: unknown): StartOutput | undefined {
  return typeof output === 'object' && output !== null && 'channels' in output ? (output as StartOutput) : undefined;
}

function channelNames(children: Record<string, AnyActorRef | undefined>): string[] {
  return Object.keys(children)
    .filter((id) => id.startsWith('channel:'))
    .map((id) => id.slice('channel:'.length));
}
