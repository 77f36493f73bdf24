import { setup } from 'xstate';

/**
 * What moves the gateway supervisor:
 * - `STARTED`: the health server listens and every channel actor, the heartbeat and the config watch run.
 * - `START_FAILED`: starting threw (port taken, log locked). - `STOP`: a signal or the host asked it to stop.
 * - `DRAINED`: running turns finished (or ran out of time), channels stopped and the log is closed.
 */
export type GatewayEvent = { type: 'STARTED' } | { type: 'START_FAILED' } | { type: 'STOP' } | { type: 'DRAINED' };

/** The states in the order the dashboard draws them. */
export const GATEWAY_STATES = ['starting', 'running', 'draining', 'stopped'] as const;
export type GatewayState = (typeof GATEWAY_STATES)[number];

/** `starting` → `running` → `draining` → `stopped`; a failed start goes straight to `stopped`. */
export const gatewayMachine = setup({
  types: { events: {} as GatewayEvent },
}).createMachine({
  id: 'gateway',
  initial: 'starting',
  states: {
    starting: { on: { STARTED: 'running', START_FAILED: 'stopped' } },
    running: { on: { STOP: 'draining' } },
    draining: { on: { DRAINED: 'stopped' } },
    stopped: { type: 'final' },
  },
});
