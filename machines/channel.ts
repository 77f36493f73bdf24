import { setup } from 'xstate';

export type ChannelEvent = { type: 'START' } | { type: 'CONNECTED' } | { type: 'FAILED' } | { type: 'STOP' };

/**
 * A supervised channel account, as `actors/gateway/channel-actor.ts` moves it: a failure restarts the
 * channel after a backoff. The actor keeps its own state; this definition draws its chart.
 */
export const channelMachine = setup({
  types: { events: {} as ChannelEvent },
}).createMachine({
  id: 'channel',
  initial: 'stopped',
  states: {
    stopped: { on: { START: 'starting' } },
    starting: { on: { CONNECTED: 'connected', FAILED: 'failed', STOP: 'stopped' } },
    connected: { on: { CONNECTED: 'connected', FAILED: 'failed', STOP: 'stopped' } },
    failed: { on: { START: 'starting', STOP: 'stopped' } },
  },
});
