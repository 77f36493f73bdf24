import { setup } from 'xstate';

/**
 * What moves the gateway's heartbeat:
 * - `SCHEDULE`: started, rescheduled after a run, or the config changed; `enabled` is `heartbeat.enabled`.
 * - `TICK`: the timer fired and a heartbeat turn starts (skipped ticks move nothing).
 * - `FINISHED`: the heartbeat turn ended. - `STOP`: the gateway stops.
 */
export type HeartbeatEvent = { type: 'SCHEDULE'; enabled: boolean } | { type: 'TICK' } | { type: 'FINISHED' } | { type: 'STOP' };

/** The states in the order the dashboard draws them. */
export const HEARTBEAT_STATES = ['stopped', 'waiting', 'running', 'disabled'] as const;
export type HeartbeatState = (typeof HEARTBEAT_STATES)[number];

/** `stopped` → `waiting` ⇄ `running`, or `disabled` while `heartbeat.enabled` is false; `STOP` ends any of them. */
export const heartbeatMachine = setup({
  types: { events: {} as HeartbeatEvent },
  guards: {
    enabled: ({ event }) => event.type === 'SCHEDULE' && event.enabled,
  },
}).createMachine({
  id: 'heartbeat',
  initial: 'stopped',
  states: {
    stopped: {
      on: { SCHEDULE: [{ guard: 'enabled', target: 'waiting' }, { target: 'disabled' }] },
    },
    waiting: {
      on: { SCHEDULE: [{ guard: 'enabled', target: 'waiting' }, { target: 'disabled' }], TICK: 'running', STOP: 'stopped' },
    },
    running: {
      on: { FINISHED: 'waiting', STOP: 'stopped' },
    },
    disabled: {
      on: { SCHEDULE: [{ guard: 'enabled', target: 'waiting' }, { target: 'disabled' }], STOP: 'stopped' },
    },
  },
});
