import { fromPromise, not, setup } from 'xstate';
import type { Board } from './board.js';

/**
 * - `SCHEDULE`: started, or the config changed (`heartbeat.enabled`, the interval): the timer starts over.
 * - `STOP`: the gateway stops; a run in flight is abandoned (its turn ends with the engine).
 */
export type HeartbeatEvent = { type: 'SCHEDULE' } | { type: 'STOP' };

/** Why a tick ran no turn; `heartbeat.ticked` says so. */
export type HeartbeatSkip = 'disabled' | 'no_tasks' | 'busy';

/**
 * What became of a run's answer, for its log line: `none` when there was nothing to send (`HEARTBEAT_OK`, no active
 * chat); else as the gateway's send reports it (a send outcome, spelled here because machines import no adapters).
 */
export type HeartbeatAnswer =
  | { kind: 'none' }
  | { kind: 'sent' }
  | { kind: 'relayed'; to: string }
  | { kind: 'not_delivered'; reason: string };

export const heartbeatBoard: Board<unknown> = { id: () => 'heartbeat' };

const skip = (reason: HeartbeatSkip) => ({
  target: 'waiting' as const,
  reenter: true,
  actions: { type: 'skipped' as const, params: { reason } },
});

/**
 * `stopped` → `waiting` ⇄ `running`, or `disabled` while `heartbeat.enabled` is false; `STOP` ends any of them.
 * Every `interval` in `waiting` a tick either runs the heartbeat turn (`beat`, which the host provides) or is skipped
 * in place, which moves nothing. The host provides the guards (`enabled`, `hasTasks`, `agentBusy`), the `interval`,
 * `ran` and `skipped` (they publish `heartbeat.ticked`).
 */
export const heartbeatMachine = setup({
  types: { events: {} as HeartbeatEvent },
  actors: {
    beat: fromPromise<{ answer: HeartbeatAnswer }>(async () => ({ answer: { kind: 'none' } })),
  },
  actions: {
    ran: (_, _params: { answer: HeartbeatAnswer }) => {},
    skipped: (_, _params: { reason: HeartbeatSkip }) => {},
    failed: (_, _params: { error: unknown }) => {},
  },
  guards: {
    enabled: () => true,
    hasTasks: () => false,
    agentBusy: () => false,
  },
  delays: {
    interval: () => 30 * 60_000,
  },
}).createMachine({
  id: 'heartbeat',
  initial: 'stopped',
  on: {
    SCHEDULE: [{ guard: 'enabled', target: '.waiting', reenter: true }, { target: '.disabled' }],
    STOP: '.stopped',
  },
  states: {
    stopped: {},
    waiting: {
      after: {
        interval: [
          { guard: not('enabled'), ...skip('disabled') },
          { guard: not('hasTasks'), ...skip('no_tasks') },
          { guard: 'agentBusy', ...skip('busy') },
          { target: 'running' },
        ],
      },
    },
    running: {
      invoke: {
        id: 'beat',
        src: 'beat',
        onDone: { target: 'waiting', actions: { type: 'ran', params: ({ event }) => event.output } },
        onError: { target: 'waiting', actions: { type: 'failed', params: ({ event }) => ({ error: event.error }) } },
      },
    },
    disabled: {},
  },
});
