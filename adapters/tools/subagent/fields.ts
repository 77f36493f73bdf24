import * as z from 'zod';

/** The arguments `spawn` and `subagent` share, in the peer runtime's names. */
export const taskArguments = {
  task: z
    .string()
    .trim()
    .min(1)
    .describe(
      'The task for the subagent to complete, with everything it needs to know: it sees none of this conversation',
    ),
  label: z.string().optional().describe('Optional short label for the task (for display)'),
  agent_id: z
    .string()
    .optional()
    .describe('Optional target agent ID to delegate the task to (one listed in your agent registry)'),
};

/** The request a `spawn` or `subagent` call makes of the subagents. */
export function requestOf({
  task,
  label,
  agent_id,
}: {
  task: string;
  label?: string | undefined;
  agent_id?: string | undefined;
}) {
  return { task, ...(label ? { label } : {}), ...(agent_id?.trim() ? { agentId: agent_id.trim() } : {}) };
}
