import * as z from 'zod';
import { ok, type Tool } from '../tool.js';
import { requestOf, taskArguments } from './fields.js';
import type { SubagentPort } from './port.js';

const parameters = z.object(taskArguments);

/** `spawn`: a subagent works on the task in the background; the result reaches the user through `message`. */
export function spawnTool(port: SubagentPort): Tool<z.infer<typeof parameters>> {
  return {
    name: 'spawn',
    description:
      'Spawn a subagent to handle a task in the background. Use this for complex or time-consuming tasks that ' +
      'can run independently. It returns a task id at once; the subagent has its own context (no conversation ' +
      'history) and reports to the user with the message tool when done. Check on it with spawn_status.',
    parameters,
    async execute(args, context) {
      const view = port.spawn(requestOf(args), context);
      const named = view.label ? ` '${view.label}'` : '';
      const queued = view.waiting ? ' It waits for a free slot first.' : '';
      return ok(
        `Spawned subagent${named} as task ${view.task_id} (agent ${view.agent_id}).${queued} It will ` +
          `report to the user when done; spawn_status {"task_id":"${view.task_id}"} shows its progress.`,
      );
    },
  };
}
