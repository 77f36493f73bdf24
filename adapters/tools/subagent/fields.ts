import * as z from 'zod';

/** The arguments `spawn` and `subagent` share, in the peer runtime's names. */
export const taskArguments = {
  task: z.string().trim().min(1).describe('The task for the subagent to complete, with everything it needs to know: it sees none of this conversation'),
  label: z.string().optional().describe('Optional short label for the task (for display)'),
};
