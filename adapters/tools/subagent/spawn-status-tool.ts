import * as z from 'zod';
import { ok, type Tool } from '../tool.js';
import type { SubagentPort, TaskView } from './port.js';

const parameters = z.object({
  task_id: z
    .string()
    .optional()
    .describe('The task id spawn returned; omit it to list every task of this conversation'),
});

const RESULT_SHOWN = 300;
const iso = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** One task as the model reads it: status, label, agent, times, then the task and its result or reason. */
export function describeTask(view: TaskView): string {
  const head = [
    `[${view.task_id}] status=${view.status}${view.waiting ? ' (waiting for a free slot)' : ''}`,
    view.label ? `label=${JSON.stringify(view.label)}` : undefined,
    `agent=${view.agent_id}`,
    view.started_at !== undefined ? `started=${iso(view.started_at)}` : `created=${iso(view.created_at)}`,
    view.ended_at !== undefined ? `ended=${iso(view.ended_at)}` : undefined,
  ]
    .filter(Boolean)
    .join('  ');
  const result =
    view.result && [...view.result].length > RESULT_SHOWN
      ? `${[...view.result].slice(0, RESULT_SHOWN).join('')}…`
      : view.result;
  return [
    head,
    `  task:   ${view.task}`,
    result ? `  result: ${result}` : undefined,
    view.reason ? `  reason: ${view.reason}` : undefined,
  ]
    .filter(Boolean)
    .join('\n');
}

/**
 * `spawn_status`: the state of spawned tasks of this conversation (`running`, `completed`, `failed`, `canceled`).
 * Polling it is expected, so loop detection does not count it (`machines/loop-detection.ts`).
 */
export function spawnStatusTool(port: SubagentPort): Tool<z.infer<typeof parameters>> {
  return {
    name: 'spawn_status',
    description:
      'Get the status of spawned subagents: running, completed, failed or ' +
      'canceled, with label, start and end times and the start of the result. ' +
      'Give task_id for one task; omit it to list every task of this conversation.',
    parameters,
    async execute({ task_id }, context) {
      const tasks = port.status(task_id?.trim() || undefined, context);
      if (tasks.length === 0) return ok('No subagents have been spawned in this conversation yet.');
      if (tasks.length === 1 && task_id) return ok(describeTask(tasks[0]!));
      const counts = (['running', 'completed', 'failed', 'canceled'] as const).flatMap((s) => {
        const n = tasks.filter((t) => t.status === s).length;
        return n > 0 ? [`${s} ${n}`] : [];
      });
      return ok([`Subagent tasks (${tasks.length}: ${counts.join(', ')}):`, ...tasks.map(describeTask)].join('\n\n'));
    },
  };
}
