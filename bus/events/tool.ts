import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';
import { imagePartSchema } from './provider.js';

export const todoItemSchema = lazySchema(() =>
  z.object({
    id: z.string(),
    content: z.string(),
    status: z.enum(['pending', 'in_progress', 'completed', 'canceled']),
    priority: z.enum(['low', 'medium', 'high']),
  }),
);

export const toolEvents = {
  /** Arguments are recorded in the log (the log is the user's own); logs print only their keys. */
  'tool.requested': lazySchema(() =>
    z.object({ call_id: z.string(), name: z.string(), arguments: z.record(z.string(), z.unknown()) }),
  ),
  /** The exact result the model saw, after the secret filter, with the images it was shown (base64, as sent). */
  'tool.completed': lazySchema(() =>
    z.object({
      call_id: z.string(),
      name: z.string(),
      ok: z.boolean(),
      content: z.string(),
      images: z.array(imagePartSchema()).optional(),
    }),
  ),
  'todo.written': lazySchema(() => z.object({ todos: z.array(todoItemSchema()) })),
  'skill.armed': lazySchema(() => z.object({ skill: z.string() })),
  'skill.disarmed': lazySchema(() => z.object({ skill: z.string() })),
  'mcp.unlocked': lazySchema(() => z.object({ tools: z.array(z.string()), ttl: z.number().int().positive() })),
  'mcp.hidden': lazySchema(() => z.object({ tools: z.array(z.string()) })),
} as const;
