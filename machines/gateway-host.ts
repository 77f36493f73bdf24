import { assign, fromPromise, setup } from 'xstate';

/**
 * What a running gateway is to its host (the gateway, its control socket, its logs): `machines/` imports no actor
 * types, so the host registers it by augmenting this interface (`declare module`) with `running`.
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled in by the host's declaration merging
export interface GatewayHostRegister {}
type Running = GatewayHostRegister extends { running: infer T } ? T : unknown;

/** What the dashboard (or the bus, `gateway.<action>.requested`) asks of the gateway it hosts. */
export type GatewayHostEvent = { type: 'START' } | { type: 'STOP' } | { type: 'RESTART' };
type Request = GatewayHostEvent['type'];

export interface GatewayHostContext {
  /** The gateway while it runs (and while it stops). */
  running?: Running;
  /** Why the last start failed (the message of the start's error); a good start clears it. */
  failure?: string;
  /** Requests that came while the gateway was starting or stopping: each is answered in turn, in order. */
  queue: readonly Request[];
  /** When the gateway entered its state, by the host's clock (the `stamp` action). */
  since: number;
}

const next = (queue: readonly Request[], ...requests: Request[]) => requests.includes(queue[0] as Request);

/**
 * The gateway `tern-launcher` runs: `stopped` → `starting` (the host's `start`: config, logs, the gateway or a cluster
 * member) → `running` → `stopping` (the host's `stop`: drained, then closed) → `stopped`. A restart stops it, rests
 * in `restarting.stopped` for the `pause` delay (so the dashboard sees the stop before the start), then starts it.
 * A request that comes while it starts or stops waits in `queue`, and is taken once it has got there.
 */
export const gatewayHostMachine = setup({
  types: {
    events: {} as GatewayHostEvent,
    context: {} as GatewayHostContext,
  },
  actors: {
    start: fromPromise<Running>(async () => {
      throw new Error('no start provided');
    }),
    stop: fromPromise<void, Running>(async () => undefined),
  },
  actions: {
    /** Provided by the host: the machine has no clock of its own. */
    stamp: assign({ since: 0 }),
    queued: assign(({ context, event }) => ({ queue: [...context.queue, event.type] })),
    taken: assign(({ context }) => ({ queue: context.queue.slice(1) })),
  },
  guards: {
    startNext: ({ context }) => next(context.queue, 'START', 'RESTART'),
    stopNext: ({ context }) => next(context.queue, 'STOP'),
    restartNext: ({ context }) => next(context.queue, 'RESTART'),
    startedNext: ({ context }) => next(context.queue, 'START'),
  },
  delays: {
    /** Between a restart's stop and its start: nothing needs to wait, the step is there to be seen. */
    pause: 0,
  },
}).createMachine({
  id: 'gateway_host',
  context: { queue: [], since: 0 },
  initial: 'stopped',
  states: {
    stopped: {
      entry: 'stamp',
      always: [
        { guard: 'startNext', target: 'starting', actions: 'taken' },
        { guard: 'stopNext', actions: 'taken' },
      ],
      on: { START: 'starting', RESTART: 'starting' },
    },
    starting: {
      entry: 'stamp',
      invoke: {
        id: 'start',
        src: 'start',
        onDone: {
          target: 'running',
          actions: assign(({ event }) => ({ running: event.output, failure: undefined })),
        },
        onError: {
          target: 'stopped',
          actions: assign(({ event }) => ({ failure: event.error instanceof Error ? event.error.message : 'failed' })),
        },
      },
      on: { START: { actions: 'queued' }, STOP: { actions: 'queued' }, RESTART: { actions: 'queued' } },
    },
    running: {
      entry: 'stamp',
      always: [
        { guard: 'stopNext', target: 'stopping', actions: 'taken' },
        { guard: 'restartNext', target: 'restarting', actions: 'taken' },
        { guard: 'startedNext', actions: 'taken' },
      ],
      on: { STOP: 'stopping', RESTART: 'restarting' },
    },
    stopping: {
      entry: 'stamp',
      invoke: {
        id: 'stop',
        src: 'stop',
        input: ({ context }) => context.running as Running,
        onDone: { target: 'stopped', actions: assign({ running: undefined }) },
        onError: { target: 'stopped', actions: assign({ running: undefined }) },
      },
      on: { START: { actions: 'queued' }, STOP: { actions: 'queued' }, RESTART: { actions: 'queued' } },
    },
    restarting: {
      initial: 'stopping',
      on: { START: { actions: 'queued' }, STOP: { actions: 'queued' }, RESTART: { actions: 'queued' } },
      states: {
        stopping: {
          entry: 'stamp',
          invoke: {
            id: 'stop',
            src: 'stop',
            input: ({ context }) => context.running as Running,
            onDone: { target: 'stopped', actions: assign({ running: undefined }) },
            onError: { target: 'stopped', actions: assign({ running: undefined }) },
          },
        },
        stopped: {
          entry: 'stamp',
          after: { pause: '#gateway_host.starting' },
        },
      },
    },
  },
});
