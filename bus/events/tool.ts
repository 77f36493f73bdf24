import { z } from 'zod';

export const todoItemSchema = z.object({
  id: z.string(),
  content: z.string(),
  status: z.enum(['pending', 'in_progress', 'completed', 'canceled']),
  priority: z.enum(['low', 'medium', 'high']),
});

export const toolEvents = {
  /** Arguments are recorded in the log (the log is the user's own); logs print only their keys. */
  'tool.requested': z.object({ call_id: z.string(), name: z.string(), arguments: z.record(z.string(), z.unknown()) }),
  /** The exact result the model saw, after the secret filter. */
  'tool.completed': z.object({ call_id: z.string(), name: z.string(), ok: z.boolean(), content: z.string() }),
  'todo.written': z.object({ todos: z.array(todoItemSchema) }),
  'skill.armed': z.object({ skill: z.string() }),
  'skill.disarmed': z.object({ skill: z.string() }),
  'mcp.unlocked': z.object({ tools: z.array(z.string()), ttl: z.number().int().positive() }),
  'mcp.hidden': z.object({ tools: z.array(z.string()) }),
} as const;
