import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';

export const mediaSchema = lazySchema(() =>
  z.object({
    kind: z.enum(['image', 'audio', 'video', 'file']),
    path: z.string().optional(),
    url: z.string().optional(),
    mime: z.string().optional(),
    name: z.string().optional(),
    /** The platform's id of a file not fetched yet (a voice message is fetched when its turn transcribes it). */
    file_id: z.string().optional(),
  }),
);

/** Where an answer goes: the `channel_list` entry, the chat, and the platform address of the chat. */
export const replyTargetSchema = lazySchema(() =>
  z.object({ channel: z.string(), chat: z.string(), reply_to: z.string() }),
);
export type ReplyTarget = z.infer<ReturnType<typeof replyTargetSchema>>;

/**
 * What a reply is: a turn's outcome, a chat command's answer, the notice after a restart, or a message the agent
 * sent by itself (the `message` tool, a cron job).
 */
export const replyOutcomeSchema = lazySchema(() =>
  z.enum(['completed', 'stopped', 'failed', 'aborted', 'command', 'restarted', 'message']),
);
export type ReplyOutcome = z.infer<ReturnType<typeof replyOutcomeSchema>>;

export const messageEvents = {
  /**
   * A message a channel accepted (its trigger and `allow_from` passed): work for the dispatcher. `channel` is the
   * `channel_list` entry, `kind` its type. Logs written before #21 carry the route here (`session_key`) and no
   * `message.routed`.
   */
  'message.received': lazySchema(() =>
    z.object({
      channel: z.string(),
      kind: z.string().optional(),
      account: z.string().default('default'),
      message_id: z.string(),
      chat: z.string(),
      reply_to: z.string().optional(),
      sender: z.string(),
      sender_aliases: z.array(z.string()).optional(),
      text: z.string(),
      session_key: z.string().optional(),
      space: z.string().optional(),
      topic: z.string().optional(),
      mentioned: z.boolean().optional(),
      commands: z.array(z.string()).optional(),
      media: z.array(mediaSchema()).default([]),
    }),
  ),
  /**
   * A message for one session (the `agent` and `session` keys): work for the sessions, handled in order. `channel`
   * is the kind the turn sees (`telegram`, `cli`, `system`). With `reply` the outbox delivers the answer there;
   * without, whoever routed it reads `reply.requested` (the terminal, the heartbeat, cron).
   */
  'message.routed': lazySchema(() =>
    z.object({
      message_id: z.string(),
      channel: z.string(),
      account: z.string().default('default'),
      chat: z.string(),
      sender: z.string(),
      /** Every form of the sender `allow_from` may name (id, @username): an owner is recognized by any of them. */
      sender_aliases: z.array(z.string()).optional(),
      text: z.string(),
      session_key: z.string(),
      /**
       * Sent over a network (every chat channel but the terminal and internal ones): tools apply their remote rules.
       */
      remote: z.boolean(),
      reply: replyTargetSchema().optional(),
      /** The chat commands the channel supports; a registered command outside it is refused. Absent: all. */
      commands: z.array(z.string()).optional(),
      media: z.array(mediaSchema()).default([]),
      /** A subagent task's message (its keys carry `parent` and `task`): the agent whose turn started it. */
      delegated_by: z.string().optional(),
    }),
  ),
  /** `/stop` for a session: control, handled at once, never queued behind the turn it stops. */
  'turn.stop.requested': lazySchema(() => z.object({ message_id: z.string(), reply: replyTargetSchema().optional() })),
  /**
   * A subagent task was canceled (its parent's `/stop`, a timeout, a shutdown): the running turn of its session (the
   * `agent` and `session` keys, with `parent` and `task`) ends as aborted with `reason`. In a user's session (Ctrl-C in
   * `tern agent`) it cancels one message, `message_id` (else the one being handled): its turn ends as aborted, or it
   * leaves the mailbox unrun; it is answered as aborted and the session goes on. Control, like `/stop`: handled at
   * once, never queued behind the turn it ends.
   */
  'turn.abort.requested': lazySchema(() => z.object({ reason: z.string(), message_id: z.string().optional() })),
  /**
   * A subagent task has ended: its session (the `agent` and `session` keys) leaves its agent, with its actors and its
   * todo plan. Control: handled at once.
   */
  'session.release.requested': lazySchema(() => z.object({ reason: z.string() })),
  /**
   * The answer to a handled message (a turn's reply, a command's answer, the notice after a restart): work for the
   * outbox when it has a `reply` target. `key` + `:<part>` is each part's send key (`:file<index>` for a file), so no
   * part is sent twice; `edit_of` is a message already shown (a placeholder or a streamed message) that the first part
   * replaces.
   */
  'reply.requested': lazySchema(() =>
    z.object({
      message_id: z.string(),
      outcome: replyOutcomeSchema(),
      text: z.string(),
      key: z.string(),
      reply: replyTargetSchema().optional(),
      edit_of: z.string().optional(),
      /**
       * Buttons under the last part where the channel has them (an approval's Approve and Deny); the text says what to
       * reply.
       */
      choices: z.array(z.object({ label: z.string(), reply: z.string() })).optional(),
      /**
       * Files sent with the text (the `message`, `send_file` and `image_generate` tools): the text is their caption
       * when it fits.
       */
      files: z
        .array(
          z.object({
            kind: z.enum(['image', 'audio', 'video', 'file']),
            path: z.string(),
            mime: z.string().optional(),
          }),
        )
        .optional(),
    }),
  ),
  /** The outbox is done with a reply: `parts` sent (or already sent before), `failed` when one was given up. */
  'reply.delivered': lazySchema(() =>
    z.object({ message_id: z.string(), key: z.string(), parts: z.number().int().nonnegative(), failed: z.boolean() }),
  ),
  /**
   * The outbox is about to hand a part to its channel; once this is in the log the part is sent. A restart that finds
   * it without its `message.sent` cannot know whether the platform got the part (no platform API says so), and does
   * not send it again: a part is never sent twice.
   */
  'message.sending': lazySchema(() =>
    z.object({ channel: z.string(), chat: z.string(), send_key: z.string(), part: z.number().int().nonnegative() }),
  ),
  /** A reply (or one part of it) handed to a channel. `send_key` makes a retried send idempotent. */
  'message.sent': lazySchema(() =>
    z.object({
      channel: z.string(),
      chat: z.string(),
      text: z.string(),
      send_key: z.string(),
      part: z.number().int().nonnegative().default(0),
      message_id: z.string().optional(),
      media: z.array(mediaSchema()).default([]),
    }),
  ),
  /**
   * The outbox gave a part up: `not_sent` when the platform never took it (tried `attempts` times, or refused),
   * `unknown` when it may have (a server error after the request was sent): such a part is never sent again, so it is
   * never shown twice. The chat is told either way, and a restart treats the part as settled.
   */
  'message.undelivered': lazySchema(() =>
    z.object({
      channel: z.string(),
      chat: z.string(),
      send_key: z.string(),
      part: z.number().int().nonnegative(),
      outcome: z.enum(['not_sent', 'unknown']),
      reason: z.string(),
      attempts: z.number().int().positive(),
    }),
  ),
  /** An edit of an already sent message (streaming updates). */
  'message.edited': lazySchema(() =>
    z.object({
      channel: z.string(),
      chat: z.string(),
      message_id: z.string(),
      text: z.string(),
    }),
  ),
  /** A voice message turned into text before its turn. */
  'message.transcribed': lazySchema(() =>
    z.object({ message_id: z.string(), text: z.string(), model_name: z.string() }),
  ),
  /** A chat command answered before the model, such as `/help`. */
  'command.handled': lazySchema(() =>
    z.object({
      command: z.string(),
      args: z.string().default(''),
      reply: z.string().optional(),
    }),
  ),
} as const;
