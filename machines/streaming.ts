import { assign, setup } from 'xstate';
import * as z from 'zod';

/** `channel_list.<name>.settings.streaming` of the channel the reply goes to (when streaming is enabled). */
export const streamingSettingsSchema = z.object({
  throttle_seconds: z.number().nonnegative(),
  min_growth_chars: z.number().int().nonnegative(),
});
export type StreamingInput = z.infer<typeof streamingSettingsSchema>;

/**
 * One machine per streamed model request. Machines have no clock: `at` is epoch ms from the host.
 * - `CHUNK`: the full text so far. - `STREAM_DONE`: the answer is complete (after a retry: the normal
 *   request answered). - `STREAM_FAILED`: the stream (or, after a retry, the normal request) failed.
 */
export type StreamingEvent =
  | { type: 'CHUNK'; text: string; at: number }
  | { type: 'STREAM_DONE'; text: string; at: number }
  | { type: 'STREAM_FAILED' };

/**
 * How it ended, which tells the turn what to do with the reply:
 * - `streamed`: the channel shows the final text; do not send it again.
 * - `nothing_shown`: the answer had no text (tool calls only).
 * - `cut_after_chunk`: the stream failed after text was shown; no second answer.
 * - `answered_without_stream`: the one retry answered; send the reply the normal way.
 * - `failed_after_retry`: the retry failed too; the turn fails.
 */
export type StreamEnding =
  | 'streamed'
  | 'nothing_shown'
  | 'cut_after_chunk'
  | 'answered_without_stream'
  | 'failed_after_retry';

export interface StreamingContext {
  settings: StreamingInput;
  /** The text the channel shows and when it was last sent. */
  shown: string;
  shownAt: number;
  /** The newest text received, shown or not. */
  latest: string;
  ending: StreamEnding | null;
}

const textOf = (event: StreamingEvent): string => (event.type === 'STREAM_FAILED' ? '' : event.text);
const atOf = (event: StreamingEvent, fallback: number): number =>
  event.type === 'STREAM_FAILED' ? fallback : event.at;
const eventText = ({ event }: { event: StreamingEvent }) => ({ text: textOf(event) });
const latestText = ({ context }: { context: StreamingContext }) => ({ text: context.latest });
const endAs = (ending: StreamEnding) => ({ type: 'endAs' as const, params: { ending } });
const isVisible = (text: string): boolean => text.trim() !== '';

function updateIsDue(context: StreamingContext, event: StreamingEvent): boolean {
  const text = textOf(event);
  const waited = atOf(event, context.shownAt) - context.shownAt >= context.settings.throttle_seconds * 1000;
  const grown = text.length - context.shown.length >= context.settings.min_growth_chars;
  return text !== context.shown && waited && grown;
}

/**
 * `not_started` → `showing.message_created` (first visible chunk) → `showing.message_updated` (throttle and
 * minimum growth met) → `ended`, the final text always flushed. A failure before any visible chunk moves to
 * `retrying_without_stream` exactly once; a failure after one ends with no second answer. The host
 * provides `createMessage` and `updateMessage` (channel `message.create` / `message.update`).
 */
export const streamingMachine = setup({
  types: {
    input: {} as StreamingInput,
    context: {} as StreamingContext,
    events: {} as StreamingEvent,
    output: {} as StreamEnding,
  },
  actions: {
    // Placeholders: the hosting actor provides the real effects with machine.provide.
    createMessage: (_, _params: { text: string }) => {},
    updateMessage: (_, _params: { text: string }) => {},
    markShown: assign(({ context, event }) => ({
      shown: textOf(event),
      shownAt: atOf(event, context.shownAt),
      latest: textOf(event),
    })),
    markLatestShown: assign(({ context }) => ({ shown: context.latest })),
    noteLatest: assign(({ event }) => ({ latest: textOf(event) })),
    endAs: assign((_, params: { ending: StreamEnding }) => ({ ending: params.ending })),
  },
  guards: {
    isVisible: ({ event }) => isVisible(textOf(event)),
    updateIsDue: ({ context, event }) => updateIsDue(context, event),
    finalIsUnshown: ({ context, event }) => textOf(event) !== context.shown,
    latestIsUnshown: ({ context }) => context.latest !== context.shown,
  },
}).createMachine({
  id: 'streaming',
  context: ({ input }) => ({ settings: input, shown: '', shownAt: 0, latest: '', ending: null }),
  initial: 'not_started',
  states: {
    not_started: {
      on: {
        CHUNK: {
          guard: 'isVisible',
          target: 'showing',
          actions: [{ type: 'createMessage', params: eventText }, 'markShown'],
        },
        STREAM_DONE: [
          {
            guard: 'isVisible',
            target: 'ended',
            actions: [{ type: 'createMessage', params: eventText }, 'markShown', endAs('streamed')],
          },
          { target: 'ended', actions: endAs('nothing_shown') },
        ],
        STREAM_FAILED: 'retrying_without_stream',
      },
    },
    showing: {
      initial: 'message_created',
      states: { message_created: {}, message_updated: {} },
      on: {
        CHUNK: [
          {
            guard: 'updateIsDue',
            target: '.message_updated',
            actions: [{ type: 'updateMessage', params: eventText }, 'markShown'],
          },
          { actions: 'noteLatest' },
        ],
        STREAM_DONE: [
          {
            guard: 'finalIsUnshown',
            target: 'ended',
            actions: [{ type: 'updateMessage', params: eventText }, 'markShown', endAs('streamed')],
          },
          { target: 'ended', actions: endAs('streamed') },
        ],
        STREAM_FAILED: [
          {
            guard: 'latestIsUnshown',
            target: 'ended',
            actions: [{ type: 'updateMessage', params: latestText }, 'markLatestShown', endAs('cut_after_chunk')],
          },
          { target: 'ended', actions: endAs('cut_after_chunk') },
        ],
      },
    },
    retrying_without_stream: {
      on: {
        STREAM_DONE: { target: 'ended', actions: endAs('answered_without_stream') },
        STREAM_FAILED: { target: 'ended', actions: endAs('failed_after_retry') },
      },
    },
    ended: { type: 'final' },
  },
  output: ({ context }) => context.ending ?? 'nothing_shown',
});
