import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';
import { chatMessageSchema } from './provider.js';

export const turnEndReasonSchema = lazySchema(() => z.enum(['loop_detected', 'max_tool_iterations', 'stop_requested']));

/** The machine input of a turn, recorded so a rerun starts from exactly the same settings. */
export const turnSettingsSchema = lazySchema(() =>
  z.object({
    model_name: z.string(),
    stream: z.boolean(),
    max_tool_iterations: z.number().int().positive(),
    loop_detection: z.object({
      enabled: z.boolean(),
      repeat_threshold: z.number().int(),
      critical_threshold: z.number().int(),
      window_size: z.number().int(),
    }),
  }),
);

export const turnEvents = {
  'turn.started': lazySchema(() =>
    z.object({
      message_id: z.string(),
      channel: z.string(),
      chat: z.string(),
      text: z.string(),
      session_key: z.string(),
      skill: z.string().optional(),
      settings: turnSettingsSchema(),
      /**
       * The turn profile's `history: off`: the turn neither read the session's history nor joins it, so the history
       * fold leaves out this turn's message and its reply.
       */
      history: z.literal('off').optional(),
    }),
  ),
  /** The exact request prefix and history sent on the first model call of a turn. */
  'prompt.built': lazySchema(() =>
    z.object({
      system: z.string(),
      messages: z.array(chatMessageSchema()),
      tools: z.array(z.string()),
    }),
  ),
  'turn.completed': lazySchema(() => z.object({ reply: z.string(), iterations: z.number().int().nonnegative() })),
  'turn.stopped': lazySchema(() => z.object({ reason: turnEndReasonSchema(), reply: z.string() })),
  'turn.failed': lazySchema(() => z.object({ code: z.string(), message: z.string(), reply: z.string() })),
  /** A turn found in flight when the process started again: closed explicitly, never left dangling. */
  'turn.aborted': lazySchema(() => z.object({ reason: z.string() })),
  'loop.warned': lazySchema(() => z.object({ tool: z.string(), count: z.number().int().positive() })),
  /** A summary that covers the messages up to `through_seq` (logs before #21; `session.compacted` replaced it). */
  'summary.written': lazySchema(() => z.object({ summary: z.string(), through_seq: z.number().int().nonnegative() })),
  /**
   * A history checkpoint: the session's history from here on is this summary and these newest messages, so loading
   * it reads the log back to the last checkpoint only.
   */
  'session.compacted': lazySchema(() =>
    z.object({ summary: z.string().optional(), messages: z.array(chatMessageSchema()) }),
  ),
} as const;
