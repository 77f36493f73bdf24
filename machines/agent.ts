import { assign, fromPromise, setup } from 'xstate';
import type { Envelope } from '../bus/index.js';
import type { Board } from './board.js';

/**
 * - `MESSAGE`: work for one of the agent's sessions (a routed message); a session not in memory is opened first.
 * - `STOP_TURN`: `/stop` for one of its sessions, passed on at once.
 * - `ABORT_TURN`: `turn.abort.requested`: a subagent task was canceled, or a terminal gave up on its message (Ctrl-C).
 * - `RELEASE`: a subagent task has ended (`session.release.requested`): its session leaves.
 * - `DRAIN`: shutdown began: sessions finish what runs and start nothing new; new work waits for the next start.
 * - `STOP`: running turns end as aborted and the sessions close.
 */
export type AgentEvent =
  | { type: 'MESSAGE'; message: Envelope<'message.routed'> }
  | { type: 'STOP_TURN'; request: Envelope<'turn.stop.requested'> }
  | { type: 'ABORT_TURN'; request: Envelope<'turn.abort.requested'> }
  | { type: 'RELEASE'; request: Envelope<'session.release.requested'> }
  | { type: 'DRAIN' }
  | { type: 'STOP'; reason: string };

export interface AgentInput {
  agent: string;
}

export interface AgentContext extends AgentInput {
  /** Sessions this agent has opened since it started (a session loaded again after it left memory counts again). */
  sessions: number;
  /** Why it stopped. */
  reason?: string;
}

export const agentBoard: Board<AgentContext> = {
  id: (context) => `agent:${context.agent}`,
  keys: (context) => ({ agent: context.agent }),
  shown: (context) => ({ sessions: context.sessions }),
  stopReason: (context) => context.reason ?? 'stopped',
};

/**
 * `serving` → `draining` → `stopping` → `stopped`. The host keeps the session actors (opening one per session
 * key on its first message, and letting idle ones leave memory) and provides what moves them: `isOpen`,
 * `openSession`, `deliver`, `stopTurn`, `abortTurn`, `release`, `drainSessions`, and `stopSessions`, which ends them
 * all.
 */
export const agentMachine = setup({
  types: {
    input: {} as AgentInput,
    context: {} as AgentContext,
    events: {} as AgentEvent,
  },
  actors: {
    stopSessions: fromPromise<void, { reason: string }>(async () => undefined),
  },
  actions: {
    countSession: assign({ sessions: ({ context }) => context.sessions + 1 }),
    openSession: (_, _message: Envelope<'message.routed'>) => {},
    deliver: (_, _message: Envelope<'message.routed'>) => {},
    stopTurn: (_, _request: Envelope<'turn.stop.requested'>) => {},
    abortTurn: (_, _request: Envelope<'turn.abort.requested'>) => {},
    release: (_, _request: Envelope<'session.release.requested'>) => {},
    drainSessions: () => {},
  },
  guards: {
    isOpen: (_, _message: Envelope<'message.routed'>) => false,
  },
}).createMachine({
  id: 'agent',
  context: ({ input }) => ({ ...input, sessions: 0 }),
  initial: 'serving',
  on: {
    STOP_TURN: { actions: { type: 'stopTurn', params: ({ event }) => event.request } },
    ABORT_TURN: { actions: { type: 'abortTurn', params: ({ event }) => event.request } },
    RELEASE: { actions: { type: 'release', params: ({ event }) => event.request } },
    STOP: { target: '.stopping', actions: assign({ reason: ({ event }) => event.reason }) },
  },
  states: {
    // Once draining, new work is not delivered: it stays open in the log for the next start.
    serving: {
      on: {
        MESSAGE: [
          {
            guard: { type: 'isOpen', params: ({ event }) => event.message },
            actions: { type: 'deliver', params: ({ event }) => event.message },
          },
          {
            actions: [
              { type: 'openSession', params: ({ event }) => event.message },
              'countSession',
              { type: 'deliver', params: ({ event }) => event.message },
            ],
          },
        ],
        DRAIN: 'draining',
      },
    },
    draining: {
      entry: 'drainSessions',
    },
    stopping: {
      invoke: {
        id: 'sessions',
        src: 'stopSessions',
        input: ({ context }) => ({ reason: context.reason ?? 'stopped' }),
        onDone: 'stopped',
        onError: 'stopped',
      },
    },
    stopped: { type: 'final' },
  },
});
