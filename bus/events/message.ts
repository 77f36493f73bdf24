import { z } from 'zod';
import { lazySchema } from '../lazy-schema.js';

export const mediaSchema = lazySchema(() =>
  z.object({
    kind: z.enum(['image', 'audio', 'video', 'file']),
    path: z.string().optional(),
    url: z.string().optional(),
    mime: z.string().optional(),
    name: z.string().optional(),
  }),
);

export const messageEvents = {
  /** An inbound message from a channel, before dispatch decided anything beyond its session. */
  'message.received': lazySchema(() =>
    z.object({
      channel: z.string(),
      account: z.string().default('default'),
      message_id: z.string(),
      chat: z.string(),
      sender: z.string(),
      text: z.string(),
      session_key: z.string().optional(),
      space: z.string().optional(),
      topic: z.string().optional(),
      mentioned: z.boolean().optional(),
      media: z.array(mediaSchema()).default([]),
    }),
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
  'message.transcribed': lazySchema(() => z.object({ message_id: z.string(), text: z.string(), model_name: z.string() })),
  /** A chat command answered before the model, such as `/help`. */
  'command.handled': lazySchema(() =>
    z.object({
      command: z.string(),
      args: z.string().default(''),
      reply: z.string().optional(),
    }),
  ),
} as const;
