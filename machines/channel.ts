import { assign, fromCallback, setup, spawnChild, stopChild } from 'xstate';
import type { Board } from './board.js';

/**
 * The channel's connection, as its link reports it (`MESSAGE` carries one inbound message and the chat commands the
 * channel supports). A `FAILED` that is `lasting` (an unknown kind, a missing setting) cannot pass by itself: only a
 * changed config starts the channel again.
 */
export type ChannelEvent =
  | { type: 'START' }
  | { type: 'CONNECTED' }
  | { type: 'FAILED'; reason: string; lasting?: boolean }
  | { type: 'STOP' }
  | { type: 'MESSAGE'; message: unknown; commands: readonly string[] };

export interface ChannelInput {
  /** The `channel_list` entry name. */
  name: string;
  kind: string;
  account: string;
  backoff: { baseMs: number; maxMs: number };
}

export interface ChannelContext extends ChannelInput {
  /** Failures in a row since the channel last connected. */
  failures: number;
  reason?: string;
  restartInMs?: number;
}

export const channelBoard: Board<ChannelContext> = {
  id: (context) => `channel:${context.name}`,
};

/**
 * One supervised channel account. `starting` spawns its `link` (the host's callback actor that builds the channel
 * and reports its connection and messages); a failed start, a dropped connection or a stalled poll stops the link,
 * and after an exponential backoff a fresh one starts; the other channels never notice. A channel that cannot start as
 * configured is `refused` and not retried. The host provides `link`, `accept` (an inbound message),
 * `announceConnected`, `announceFailed` and `announceRefused`.
 */
export const channelMachine = setup({
  types: {
    input: {} as ChannelInput,
    context: {} as ChannelContext,
    events: {} as ChannelEvent,
  },
  actors: {
    link: fromCallback<ChannelEvent, ChannelInput>(() => undefined),
  },
  actions: {
    accept: (_, _message: { message: unknown; commands: readonly string[] }) => {},
    announceConnected: () => {},
    announceFailed: () => {},
    announceRefused: () => {},
    stopLink: stopChild('link'),
    connected: assign({ failures: 0, reason: undefined, restartInMs: undefined }),
    refused: assign((_, { reason }: { reason: string }) => ({ reason, restartInMs: undefined })),
    failed: assign(({ context }, { reason }: { reason: string }) => ({
      reason,
      restartInMs: Math.min(context.backoff.baseMs * 2 ** context.failures, context.backoff.maxMs),
      failures: context.failures + 1,
    })),
  },
  guards: {
    lasting: (_, { lasting }: { lasting?: boolean }) => lasting === true,
  },
  delays: {
    backoff: ({ context }) => context.restartInMs ?? context.backoff.baseMs,
  },
}).createMachine({
  id: 'channel',
  context: ({ input }) => ({ ...input, failures: 0 }),
  initial: 'stopped',
  on: {
    STOP: { target: '.stopped', actions: 'stopLink' },
  },
  states: {
    stopped: { on: { START: 'starting' } },
    starting: {
      entry: spawnChild('link', {
        id: 'link',
        input: ({ context }) => ({
          name: context.name,
          kind: context.kind,
          account: context.account,
          backoff: context.backoff,
        }),
      }),
      on: {
        CONNECTED: { target: 'connected', actions: ['connected', 'announceConnected'] },
        FAILED: [
          {
            guard: { type: 'lasting', params: ({ event }) => event },
            target: 'refused',
            actions: ['stopLink', { type: 'refused', params: ({ event }) => event }, 'announceRefused'],
          },
          {
            target: 'failed',
            actions: ['stopLink', { type: 'failed', params: ({ event }) => event }, 'announceFailed'],
          },
        ],
        MESSAGE: { actions: { type: 'accept', params: ({ event }) => event } },
      },
    },
    connected: {
      on: {
        // A connection that came back after a drop the link rode out.
        CONNECTED: { actions: 'announceConnected' },
        FAILED: [
          {
            guard: { type: 'lasting', params: ({ event }) => event },
            target: 'refused',
            actions: ['stopLink', { type: 'refused', params: ({ event }) => event }, 'announceRefused'],
          },
          {
            target: 'failed',
            actions: ['stopLink', { type: 'failed', params: ({ event }) => event }, 'announceFailed'],
          },
        ],
        MESSAGE: { actions: { type: 'accept', params: ({ event }) => event } },
      },
    },
    failed: {
      after: { backoff: 'starting' },
      on: { START: 'starting' },
    },
    /** It cannot start as configured; no restart until the host starts it again (a changed config). */
    refused: {
      on: { START: 'starting' },
    },
  },
});
