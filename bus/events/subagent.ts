import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';

/** How a subagent task was started: `spawn` runs in the background, `subagent` is awaited by its parent's tool call. */
export const subagentModeSchema = lazySchema(() => z.enum(['spawn', 'subagent']));

/** How a subagent task ended; `running` is the fourth status `spawn_status` reports. */
export const subagentEndSchema = lazySchema(() => z.enum(['completed', 'failed', 'canceled']));

/**
 * A subagent task's life as its parent sees it. Both events carry the parent turn's keys (`agent`, `session`,
 * `turn`) and the task's (`task`); the child's own events carry `parent` and `task` on its own session.
 */
export const subagentEvents = {
  'subagent.spawned': lazySchema(() =>
    z.object({
      task_id: z.string(),
      mode: subagentModeSchema(),
      /** The agent that runs the task. */
      agent_id: z.string(),
      label: z.string().optional(),
      task: z.string(),
      /** 1 for a child of a user's turn, 2 for its child, … */
      depth: z.number().int().positive(),
      /** The child's own session (channel `subagent`). */
      session_key: z.string(),
    }),
  ),
  'subagent.ended': lazySchema(() =>
    z.object({
      task_id: z.string(),
      status: subagentEndSchema(),
      /** The start of the child's final answer. */
      result: z.string().optional(),
      /** Why it failed or was canceled. */
      reason: z.string().optional(),
      /** The child's turn, when it started one. */
      turn: z.string().optional(),
    }),
  ),
} as const;
