import { assign, fromPromise, setup } from 'xstate';
import type { Board } from './board.js';

/** `STOP`: a signal or the host asked the gateway to stop. */
export type GatewayEvent = { type: 'STOP'; signal?: string };

export interface GatewayContext {
  /** Why the start failed, when it did. */
  failure?: unknown;
  signal?: string;
}

export const gatewayBoard: Board<GatewayContext> = { id: () => 'gateway' };

/**
 * `starting` → `running` → `draining` → `stopped`; a failed start goes straight to `stopped`. The host provides
 * `start` (health server, channels, heartbeat, config watch) and `drain` (running turns finish or time out, replies
 * go out, channels stop, the log is closed).
 */
export const gatewayMachine = setup({
  types: { events: {} as GatewayEvent, context: {} as GatewayContext },
  actors: {
    start: fromPromise<void>(async () => undefined),
    drain: fromPromise<void, { signal?: string }>(async () => undefined),
  },
}).createMachine({
  id: 'gateway',
  context: {},
  initial: 'starting',
  states: {
    starting: {
      invoke: {
        id: 'start',
        src: 'start',
        onDone: 'running',
        onError: { target: 'stopped', actions: assign({ failure: ({ event }) => event.error }) },
      },
    },
    running: { on: { STOP: { target: 'draining', actions: assign({ signal: ({ event }) => event.signal }) } } },
    draining: {
      invoke: { id: 'drain', src: 'drain', input: ({ context }) => ({ signal: context.signal }), onDone: 'stopped', onError: 'stopped' },
    },
    stopped: { type: 'final' },
  },
});
